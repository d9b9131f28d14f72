package dev.sluice.proxy.cli;

import dev.sluice.config.model.Global;
import dev.sluice.config.model.StatsSocket;
import dev.sluice.proxy.admin.AdminSockets;
import dev.sluice.proxy.admin.CliRegistry;
import dev.sluice.proxy.admin.CliRouter;
import dev.sluice.proxy.transport.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The master CLI on an inherited socket ({@code -S fd@<n>}), which the JDK cannot adopt: served by the workers' admin
 * socket code on one event loop of Netty's native transport. The only place the master loads Netty, and only then.
 */
final class MasterCliOnNetty {
    private MasterCliOnNetty() {
    }

    /** Serves {@code socket}; returns what closes it. Throws {@link IllegalStateException} when it cannot be used. */
    static Runnable start(StatsSocket socket, CliRegistry registry, CliRouter router) {
        Transport transport = Transport.select();
        EventLoopGroup group = transport.newGroup(1, new DefaultThreadFactory("sluice-master-cli", true));
        AdminSockets sockets = new AdminSockets(List.of(socket), Global.DEFAULT_STATS_TIMEOUT_MS, registry, router);
        try {
            sockets.start(transport, group);
        } catch (IllegalStateException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        return () -> {
            sockets.stop();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        };
    }
}
