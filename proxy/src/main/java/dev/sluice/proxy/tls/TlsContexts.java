package dev.sluice.proxy.tls;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Bind;
import dev.sluice.config.model.BindTls;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Global;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.ServerTls;
import io.netty.handler.codec.quic.QuicSslContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Every TLS context of one configuration, built once and cached: one {@link ServerTlsContext} per distinct
 * {@link BindTls} (binds with identical settings share contexts, session cache and tickets) and one
 * {@link ClientTlsContext} per distinct {@link ServerTls}. {@link #prepare} builds them all and returns the
 * problems as {@code -c} lines ({@code file:line: error: ...}); the runtime then takes the contexts with
 * {@link #forBind} and {@link #forServer}. Failures are cached too, so that every line sharing bad settings
 * is reported. Owned by the runtime; its methods are meant for start-up (synchronized, not for event loops).
 */
public final class TlsContexts {
    private final Global global;
    private final TlsProvider provider;
    private final SessionTicketKeys ticketKeys;
    private final Map<BindTls, Object> binds = new HashMap<>();
    private final Map<BindTls, Object> quicBinds = new HashMap<>();
    private final Map<ServerTls, Object> servers = new HashMap<>();
    private final Set<String> warnings = new LinkedHashSet<>();
    /** The companion files and issuer chains that complete certificates (the global section's). */
    private final CertFiles files;
    /** The contexts of the configuration before (an in-process reload), whose unchanged ones are taken over; or null. */
    private TlsContexts previous;
    /** What the files each context was made from looked like (size and time of each), by settings. */
    private final Map<Object, String> fingerprints = new HashMap<>();

    /** {@code tune.ssl.capture-buffer-size}: the bytes of each client hello kept for the ssl_fc_cipherlist_* fetches (0: none). */
    public int helloCaptureSize() {
        return global.tls().captureSize();
    }

    /** Contexts for {@code global}'s session settings, on BoringSSL when it loads, with the process's ticket keys. */
    public TlsContexts(Global global) {
        this(global, TlsProvider.detect(), SessionTicketKeys.shared());
    }

    TlsContexts(Global global, TlsProvider provider, SessionTicketKeys ticketKeys) {
        this.global = global;
        this.provider = provider;
        this.ticketKeys = ticketKeys;
        if (provider.warning() != null) {
            warnings.add(provider.warning());
        }
        this.files = CertFiles.of(global.tls(), warnings::add);
    }

    /**
     * Contexts for a reloaded configuration: those of {@code previous} whose settings, global TLS settings and files
     * (size and modification time of each) did not change are taken over rather than built again, with their session
     * caches (a session resumed by id survives the reload). Null: none to take over.
     */
    public TlsContexts(Global global, TlsContexts previous) {
        this(global);
        if (previous != null && previous.global.tls().equals(global.tls()) && previous.provider.getClass() == provider.getClass()) {
            this.previous = previous;
        }
    }

    /** A context of the previous configuration for {@code key} made from the same files, or null. */
    private Object reusable(Map<?, Object> previousMap, Object key, String print) {
        if (previous == null) {
            return null;
        }
        synchronized (previous) {
            Object o = previousMap.get(key);
            return o != null && !(o instanceof Exception) && print.equals(previous.fingerprints.get(key)) ? o : null;
        }
    }

    public TlsProvider provider() {
        return provider;
    }

    /**
     * Builds the contexts of every {@code bind ... ssl} and {@code server ... ssl} of {@code config}; returns
     * one line per unusable one ({@code file:line: error: 'bind :443' in proxy 'fe' : reason}), empty when
     * all are usable. Lesser problems go to {@link #warnings}.
     */
    public synchronized List<String> prepare(Config config) {
        try {
            return prepareAll(config);
        } finally {
            // nothing more is taken over: the previous configuration's contexts are its own again
            previous = null;
        }
    }

    private List<String> prepareAll(Config config) {
        List<String> problems = new ArrayList<>();
        for (Proxy p : config.proxies()) {
            if (p.kind().hasFrontend()) {
                for (Bind b : p.binds()) {
                    if (b.tls() != null) {
                        try {
                            if (b.isQuic()) {
                                forQuicBind(p.name(), b);
                                continue;
                            }
                            forBind(p.name(), b);
                        } catch (TlsConfigException e) {
                            problems.add(e.diagnostic());
                        }
                    }
                }
            }
            if (p.kind().hasBackend()) {
                for (Server s : p.servers()) {
                    if (s.tls() != null) {
                        try {
                            forServer(p.name(), s);
                        } catch (TlsConfigException e) {
                            problems.add(e.diagnostic());
                        }
                    }
                }
            }
        }
        return problems;
    }

    /**
     * The contexts of a {@code bind ... ssl} of proxy {@code proxy}, built on first use. Throws
     * {@link TlsConfigException} (with the bind's file and line) when they cannot be built.
     */
    public synchronized ServerTlsContext forBind(String proxy, Bind bind) {
        if (bind.tls() == null) {
            throw new IllegalArgumentException("bind " + bind.text() + " has no TLS");
        }
        String subject = "'bind " + bind.text() + "' in proxy '" + proxy + "'";
        Object o = binds.get(bind.tls());
        if (o == null) {
            String print = TlsFiles.fingerprint(bind.tls().certificates(), bind.tls().caFile());
            o = previous == null ? null : reusable(previous.binds, bind.tls(), print);
            if (o != null) {
                ((ServerTlsContext) o).retain();
            } else {
                try {
                    o = ServerTlsContext.build(bind.tls(), global, files, provider, ticketKeys, warner(bind.where(), subject));
                } catch (IllegalArgumentException e) {
                    o = e;
                }
            }
            binds.put(bind.tls(), o);
            fingerprints.put(bind.tls(), print);
        }
        if (o instanceof IllegalArgumentException e) {
            throw new TlsConfigException(bind.where(), subject, e.getMessage(), e);
        }
        return (ServerTlsContext) o;
    }

    /**
     * The context of a QUIC bind ({@code quic4@ ... ssl crt ...}) of proxy {@code proxy}, built on first use
     * and shared by binds with the same settings. Throws {@link TlsConfigException} when it cannot be built.
     */
    public synchronized QuicSslContext forQuicBind(String proxy, Bind bind) {
        String subject = "'bind " + bind.text() + "' in proxy '" + proxy + "'";
        Object o = quicBinds.get(bind.tls());
        if (o == null) {
            try {
                o = QuicTlsContext.build(bind.tls(), global, files, warner(bind.where(), subject));
            } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
                o = e instanceof IllegalArgumentException iae ? iae
                        : new IllegalArgumentException("the QUIC codec's native library does not load: " + e.getMessage(), e);
            }
            quicBinds.put(bind.tls(), o);
        }
        if (o instanceof IllegalArgumentException e) {
            throw new TlsConfigException(bind.where(), subject, e.getMessage(), e);
        }
        return (QuicSslContext) o;
    }

    /**
     * The contexts of a {@code server ... ssl} of backend {@code backend}, built on first use and shared with
     * every server with the same settings. Throws {@link TlsConfigException} (with the server's file and
     * line) when they cannot be built.
     */
    public synchronized ClientTlsContext forServer(String backend, Server server) {
        if (server.tls() == null) {
            throw new IllegalArgumentException("server " + server.name() + " has no TLS");
        }
        String subject = "'server " + backend + "/" + server.name() + "'";
        Object o = servers.get(server.tls());
        if (o == null) {
            String print = TlsFiles.fingerprint(server.tls().crt() == null ? List.of() : List.of(server.tls().crt()), server.tls().caFile());
            o = previous == null ? null : reusable(previous.servers, server.tls(), print);
            if (o == null) {
                try {
                    o = ClientTlsContext.build(server.tls(), global, files, provider, warner(server.where(), subject));
                } catch (IllegalArgumentException e) {
                    o = e;
                }
            }
            servers.put(server.tls(), o);
            fingerprints.put(server.tls(), print);
        }
        if (o instanceof IllegalArgumentException e) {
            throw new TlsConfigException(server.where(), subject, e.getMessage(), e);
        }
        return (ClientTlsContext) o;
    }

    private Consumer<String> warner(SourceRef where, String subject) {
        return w -> warnings.add(w.startsWith(TlsProvider.NOTICE) ? where + ": notice: " + subject + " : " + w.substring(TlsProvider.NOTICE.length())
                : where + ": warning: " + subject + " : " + w);
    }

    /**
     * What the caller should log once: the provider fallback first (when BoringSSL is not available),
     * then settings that cannot be applied as written, each with its line.
     */
    public synchronized List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** Why the JDK provider is used (logged once), or null with BoringSSL. */
    public String providerWarning() {
        return provider.warning();
    }

    /** Rotates the session ticket keys of every server context (of the whole process). */
    public void rotateTicketKeys() {
        ticketKeys.rotate();
    }

    /** Detaches the contexts from the process's ticket keys (when this configuration is discarded). */
    public synchronized void close() {
        for (Object o : binds.values()) {
            if (o instanceof ServerTlsContext s) {
                s.close(ticketKeys);
            }
        }
    }
}
