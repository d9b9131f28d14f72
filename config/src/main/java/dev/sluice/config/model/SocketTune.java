package dev.sluice.config.model;

/**
 * Kernel socket and event-loop tuning of the {@code global} section: {@code tune.rcvbuf.client}, {@code tune.sndbuf.client}
 * (SO_RCVBUF on the listening sockets, which accepted connections inherit, and SO_SNDBUF on accepted connections),
 * {@code tune.rcvbuf.server}, {@code tune.sndbuf.server} (on server connections), {@code tune.maxaccept} (connections one
 * listener accepts in a row before the loop does something else; -1: no limit) and {@code tune.maxpollevents} (events one
 * epoll_wait returns at most). 0 everywhere means "not set": the kernel's or Netty's default.
 */
public record SocketTune(int clientRcvbuf, int clientSndbuf, int serverRcvbuf, int serverSndbuf, int maxAccept, int maxPollEvents) {
    public static final SocketTune DEFAULT = new SocketTune(0, 0, 0, 0, 0, 0);
}
