/**
 * HTTP basic authentication against {@code userlist} sections: crypt(3) password hashes
 * ({@link Crypt}) and compiled userlists ({@link Userlists}).
 */
package dev.sluice.proxy.auth;
