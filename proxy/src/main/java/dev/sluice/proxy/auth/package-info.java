/**
 * HTTP basic authentication against {@code userlist} sections: crypt(3) password hashes
 * ({@link dev.sluice.proxy.auth.Crypt}) and compiled userlists ({@link dev.sluice.proxy.auth.Userlists}).
 */
package dev.sluice.proxy.auth;
