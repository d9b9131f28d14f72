/**
 * Layer-4 proxying's connection handlers ({@code mode tcp}): {@link dev.sluice.proxy.tcp.TcpClientConnection} on an
 * accepted connection, {@link dev.sluice.proxy.tcp.TcpServerConnection} towards a server; the stream they carry is
 * {@code stream.TcpStream}. At the level of {@code h1}, {@code h2} and {@code h3}: uses {@code stream} and
 * {@code backend}, never the HTTP protocols nor the runtime.
 */
package dev.sluice.proxy.tcp;
