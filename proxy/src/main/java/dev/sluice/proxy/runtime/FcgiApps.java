package dev.sluice.proxy.runtime;

import dev.sluice.config.model.FcgiApp;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.LogTarget;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.fcgi.FcgiMuxConnection;
import dev.sluice.proxy.fcgi.FcgiServerConnection;
import dev.sluice.proxy.h2.H2ServerConnection;
import dev.sluice.proxy.h1.H1ServerConnection;
import dev.sluice.proxy.http.h1.H1Limits;
import io.netty.channel.ChannelHandler;
import dev.sluice.proxy.log.AccessLog;
import dev.sluice.proxy.log.LogWriter;
import dev.sluice.proxy.rules.FcgiRules;
import dev.sluice.proxy.rules.StickTables;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a backend with a FastCGI application ({@code use-fcgi-app}) gets at start-up: its application's rules compiled
 * and its STDERR logger ({@code log-stderr}), and the connections of its {@code proto fcgi} servers. Start-up only.
 */
final class FcgiApps {
    private FcgiApps() {
    }

    /** Gives {@code be} its application's rules and STDERR logger, when it has an application. */
    static void attach(Backend be, Global global, StickTables tables, Supplier<LogWriter> writer) {
        FcgiApp app = be.config().fcgiApp();
        if (app == null) {
            return;
        }
        FcgiRules rules = FcgiRules.compile(app, be.name(), be.config().directory(), tables, new ArrayList<>());
        List<LogTarget> targets = new ArrayList<>(app.logStderr());
        if (app.logStderrGlobal()) {
            targets.addAll(global.logs());
        }
        if (targets.isEmpty()) {
            be.fcgi(rules, m -> {
            });
            return;
        }
        List<LogTarget> to = List.copyOf(targets);
        // HAProxy logs each STDERR record at level err, tagged with the application's name
        be.fcgi(rules, m -> {
            LogWriter w = writer.get();
            for (LogTarget t : to) {
                w.submit(t, app.name(), AccessLog.ERR, m);
            }
        });
    }

    /**
     * The handler of a new multiplexed connection to {@code srv} on loop {@code loop}: FastCGI carrying several requests at
     * once for a {@code proto fcgi} server of a backend whose application may multiplex ({@link Server#fcgiMultiplexed}),
     * else HTTP/2.
     */
    static ChannelHandler orH2(Server srv, int loop, String sni, dev.sluice.config.model.Tune tune) {
        if (srv.fcgiMultiplexed() && srv.backend().fcgiRules() != null) {
            return new FcgiMuxConnection(srv, loop, srv.backend().config().fcgiApp(), srv.backend().fcgiRules(), "Sluice " + ProductInfo.VERSION);
        }
        return H2ServerConnection.create(srv, loop, sni, tune);
    }

    /**
     * The handler of a new connection to {@code srv} on loop {@code loop} that is not multiplexed: FastCGI for a {@code proto
     * fcgi} server of a backend with an application, else HTTP/1.1.
     */
    static ChannelHandler orH1(Server srv, int loop, H1Limits limits, String sni) {
        if (srv.backend().fcgiRules() != null && "fcgi".equals(srv.config().proto())) {
            return new FcgiServerConnection(srv, loop, srv.backend().config().fcgiApp(), srv.backend().fcgiRules(), "Sluice " + ProductInfo.VERSION);
        }
        return new H1ServerConnection(srv, loop, limits, sni);
    }
}
