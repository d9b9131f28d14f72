/**
 * FastCGI towards servers ({@code server ... proto fcgi} with a backend's {@code fcgi-app}): the record layer, the CGI
 * parameters and response head as HAProxy 2.6 makes them, the pooled server connection and the HTTP check's codec.
 */
package dev.sluice.proxy.fcgi;
