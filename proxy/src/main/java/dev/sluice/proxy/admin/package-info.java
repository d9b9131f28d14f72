/**
 * The admin (stats) socket: HAProxy's CLI protocol on UNIX and TCP sockets, access levels, and the
 * command registry every subsystem adds its commands to (see {@link CliRegistry}).
 */
package dev.sluice.proxy.admin;
