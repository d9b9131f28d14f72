package dev.sluice.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.EpollIoOps;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Keeps an epoll channel's interest set from ever becoming empty. Netty 4.2.18's epoll registration removes a socket
 * from the epoll set (EPOLL_CTL_DEL) when its interest set becomes empty and still believes it is there: the next
 * interest (EPOLLOUT for a write that does not go out at once) is an EPOLL_CTL_MOD that fails with ENOENT, and Netty
 * closes the channel with that error. A half-closing socket gets there: once its FIN was read Netty drops EPOLLRDHUP
 * and EPOLLIN, and a write that drains drops EPOLLOUT (a layer-4 client that shut its side and downloads more than the
 * buffers hold ended {@code CD}). EPOLLERR in the set changes nothing the kernel reports (it always reports errors) nor
 * anything Netty does (it looks at the events it gets, never clears that flag), and the set is never empty.
 * <p>
 * Netty's {@code setFlag} is protected: it is reached by reflection, from the classpath; where that is refused (a module
 * layer that does not open Netty), {@link #guard} does nothing and says so once.
 */
public final class EpollEmptyInterest {
    private static final MethodHandle SET_FLAG = setFlag();
    private static final int EPOLLERR = EpollIoOps.EPOLLERR.value();
    private static final int EPOLLIN = EpollIoOps.EPOLLIN.value();

    private EpollEmptyInterest() {
    }

    private static MethodHandle setFlag() {
        try {
            // package-private class, protected method
            Class<?> c = Class.forName("io.netty.channel.epoll.AbstractEpollChannel");
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
            return l.findVirtual(c, "setFlag", MethodType.methodType(void.class, int.class))
                    .asType(MethodType.methodType(void.class, Channel.class, int.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            System.err.println("[WARNING] cannot guard epoll channels against an empty interest set (" + e
                    + "): a half-closed layer-4 stream may end CD");
            return null;
        }
    }

    /** Whether {@link #guard} works here. */
    public static boolean available() {
        return SET_FLAG != null;
    }

    /**
     * Gives an accepted epoll channel, before it is registered, the interest set it has once it reads: EPOLLIN and the
     * guard. Netty adds a new socket to the epoll set with EPOLLRDHUP alone and adds EPOLLIN when its reading starts,
     * one {@code epoll_ctl} each, and the guard a third: here all go in the one that adds it. A handler that turns
     * reading off before it starts (a connection held by {@code maxconn}) removes EPOLLIN as it would have without this.
     * Does nothing to a channel already registered (the flags would cost a call each).
     */
    public static void prime(Channel child) {
        if (SET_FLAG == null || !(child instanceof AbstractEpollStreamChannel) || child.isRegistered()) {
            return;
        }
        try {
            // not registered: Netty only notes the flags, and registers with them
            SET_FLAG.invokeExact(child, EPOLLERR);
            SET_FLAG.invokeExact(child, EPOLLIN);
        } catch (Throwable t) {
            // registered as Netty would have
        }
    }

    /** Adds EPOLLERR to {@code ch}'s interest set if it is an epoll channel (call on its event loop). */
    public static void guard(Channel ch) {
        if (SET_FLAG == null || !(ch instanceof AbstractEpollStreamChannel) || !ch.isOpen()) {
            return;
        }
        try {
            SET_FLAG.invokeExact(ch, EPOLLERR);
        } catch (Throwable t) {
            // the socket is gone meanwhile: its handler hears of it
        }
    }
}
