package dev.sluice.proxy.backend;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A server's operational and administrative state and its transitions: UP or DOWN (health checks, {@code set server
 * ... health}), NOLB ({@code stopping}), configured maintenance ({@code disabled}), forced maintenance and drain
 * ({@code set server ... state}), the slow start after coming back, the DOWN history, and HAProxy's log lines for
 * what the CLI did; a server whose name did not resolve ({@code init-addr none}) has a placeholder address and is in
 * maintenance until it gets one. The fields are volatile; transitions run on the admin path or on a check's event
 * loop, and the backend's algorithm follows each at once. {@link Server} answers for it.
 */
final class ServerState {
    private static final InetAddress UNRESOLVED;
    /** The address part of a UNIX socket server's placeholder ({@link Server#UNIX_ADDRESS}). */
    static final InetAddress UNIX;

    static {
        try {
            UNRESOLVED = InetAddress.getByAddress("unresolved", new byte[4]);
            UNIX = InetAddress.getByAddress("unix", new byte[4]);
        } catch (UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Server server;
    private final Backend backend;
    /** The operational state, which health checks flip. */
    private volatile boolean up;
    /**
     * The configured maintenance state ({@code disabled}: HAProxy's CMAINT with FMAINT); {@code set server ... state
     * ready|drain} ends it as HAProxy clears FMAINT.
     */
    private volatile boolean maintenance;
    /** Declared {@code disabled} (HAProxy's CMAINT, which stays in the admin state when the maintenance ends). */
    private final boolean configuredDisabled;
    /** {@code set server ... health stopping}: UP but taking no new request (HAProxy's NOLB). */
    private volatile boolean stopping;
    /** HAProxy's srv_admin_state bits: {@link Server#FORCED_MAINT}, {@link Server#FORCED_DRAIN}. */
    private volatile int adminState;
    /** Epoch milliseconds of the last state change (the start, maint, drain, ready). */
    private volatile long lastChange = System.currentTimeMillis();
    /** HAProxy's check health counter of a server without checks: rise (2) until it is put in maintenance. */
    private volatile int checkHealth = 2;
    /** Its health check ({@code check}), null without one; set once by the runtime before traffic starts. */
    private volatile ServerHealthCheck check;
    /**
     * When a slow start began (epoch milliseconds: the server came back UP, or out of maintenance, with a
     * {@code slowstart}), -1 when none runs. Never at start-up, as in HAProxy.
     */
    private volatile long warmingSince = -1;
    private final DownHistory downs;

    ServerState(Server server, Backend backend, dev.sluice.config.model.Server config, boolean unresolved) {
        this.server = server;
        this.backend = backend;
        this.up = config.initState() == null || config.initState().up();
        this.downs = new DownHistory(!up, System.currentTimeMillis());
        this.maintenance = config.disabled();
        this.configuredDisabled = config.disabled();
        if (unresolved || config.disabled()) {
            // as for a server put in maintenance: HAProxy's health counter of an unchecked server drops to 0
            checkHealth = 0;
        }
    }

    /** The placeholder address of a server whose name did not resolve: 0.0.0.0 and its port. */
    static InetSocketAddress unresolvedAddress(int port) {
        return new InetSocketAddress(UNRESOLVED, port);
    }

    /** Whether {@code a} is the placeholder of {@link #unresolvedAddress}. */
    static boolean unresolved(InetSocketAddress a) {
        return a != null && a.getAddress() == UNRESOLVED;
    }

    boolean up() {
        return up;
    }

    boolean stopping() {
        return stopping;
    }

    boolean configuredMaintenance() {
        return maintenance;
    }

    int adminState() {
        return adminState;
    }

    boolean configuredDisabled() {
        return configuredDisabled;
    }

    long lastChange() {
        return lastChange;
    }

    int checkHealth() {
        ServerHealthCheck c = check;
        return c != null ? c.health() : checkHealth;
    }

    ServerHealthCheck check() {
        return check;
    }

    void check(ServerHealthCheck c) {
        this.check = c;
    }

    DownHistory downs() {
        return downs;
    }

    /** The server got an address at run time ({@code set server ... addr}) after none: out of its resolution maintenance. */
    void resolved() {
        // as HAProxy: an address given at run time takes the server out of its resolution maintenance
        lastChange = System.currentTimeMillis();
        if (!maintenance) {
            maintenanceChanged(false);
            if (up) {
                startWarmup();
            }
        }
        backend.serversChanged();
        backend.events().report(ServerEvents.WARNING, ServerEvents.name(server) + " ('" + server.fqdn() + "') is "
                + (up ? "UP/READY" : "DOWN") + " (resolves again).", null);
    }

    /** See {@link Server#lostAddress}: the address is already the placeholder. */
    void unresolvedBy(String cause) {
        lastChange = System.currentTimeMillis();
        boolean wasRunning = !maintenance && (adminState & Server.FORCED_MAINT) == 0;
        if (wasRunning) {
            maintenanceChanged(true);
        }
        backend.serversChangedQuietly();
        int requeued = backend.redistribute(server);
        if (wasRunning) {
            backend.events().report(stopping ? ServerEvents.NOTICE : ServerEvents.ALERT, ServerEvents.name(server)
                    + " is going DOWN for maintenance (" + cause + ")" + ServerEvents.tail(server, true, requeued) + ".", null);
        }
        backend.reportLoss();
        if (wasRunning && up) {
            shutdownStreams();
        }
    }

    /** See {@link Server#setHealth}. */
    void setHealth(boolean up, boolean stopping) {
        // as HAProxy's CLI: fully up (rise + fall - 1 with the defaults 2 and 3) or 0
        checkHealth = up ? 4 : 0;
        ServerHealthCheck c = check;
        if (c != null) {
            c.forceHealth(up);
        }
        changedFromCli(up, stopping);
    }

    /**
     * {@code set server ... agent up|down}: the agent's counter (set by the caller) and the server's state, as HAProxy's
     * srv_set_running / srv_set_stopped "changed from CLI"; nothing in maintenance.
     */
    void setAgentHealth(boolean up) {
        if (maintenance || (adminState & Server.FORCED_MAINT) != 0) {
            return;
        }
        changedFromCli(up, false);
    }

    private void changedFromCli(boolean up, boolean stopping) {
        boolean wasUp = this.up;
        boolean wasStopping = this.stopping;
        if (wasUp == up && wasStopping == stopping) {
            return;
        }
        // HAProxy's lines: "Server be/s is DOWN, changed from CLI. ..." and the like
        String what = !up ? " is DOWN" : stopping ? " is stopping" : " is UP";
        int level = up || wasStopping ? ServerEvents.NOTICE : ServerEvents.ALERT;
        // HAProxy mails a server going DOWN or UP, not one that starts stopping
        Server.Transition report = n -> backend.events().report(level, ServerEvents.name(server) + what + ", changed from CLI"
                + ServerEvents.tail(server, !up, n) + ".", null, up && stopping ? -1 : level);
        if (wasUp == up) {
            this.stopping = stopping;
            lastChange = System.currentTimeMillis();
            backend.serversChangedQuietly();
            report.done(0);
            backend.reportLoss();
            return;
        }
        this.stopping = stopping;
        setUp(up, report);
    }

    /** Whether the server is in its slow start (HAProxy's STARTING state). */
    boolean warming() {
        return warmingSince >= 0;
    }

    /** Whole seconds into the slow start and its length in seconds (HAProxy counts both in seconds); null when none. */
    long[] warmup() {
        long since = warmingSince;
        if (since < 0) {
            return null;
        }
        long ss = Math.max(1, (server.slowstart() + 999) / 1000);
        long e = Math.max(0, (System.currentTimeMillis() - since) / 1000);
        return e >= ss ? null : new long[] {e, ss};
    }

    /** Starts a slow start when the server has one; the backend rebuilds its balancing as it goes. */
    private void startWarmup() {
        if (server.slowstart() > 0) {
            warmingSince = System.currentTimeMillis();
            backend.warmUp(server);
        }
    }

    /** The slow start is over (or was cut short by the server going down). */
    void endWarmup() {
        warmingSince = -1;
    }

    /** See {@link Server#setUp(boolean, Server.Transition)}. */
    int setUp(boolean value, Server.Transition report) {
        if (up == value) {
            return 0;
        }
        up = value;
        long now = System.currentTimeMillis();
        lastChange = now;
        int n;
        if (value) {
            downs.wentUp(now);
            startWarmup();
            n = backend.drain(server);
            backend.serversChangedQuietly();
        } else {
            downs.wentDown(now);
            endWarmup();
            backend.serversChangedQuietly();
            n = backend.redistribute(server);
        }
        if (report != null) {
            report.done(n);
            remainsDrained();
        }
        backend.reportLoss();
        // after the lines, which count the streams still there (HAProxy's stream_shutdown only wakes them up)
        if (value) {
            shutdownBackupStreams();
        } else {
            shutdownStreams();
        }
        return n;
    }

    /** {@code on-marked-down shutdown-sessions}: the server stopped taking traffic (DOWN, maintenance), its streams end. */
    private void shutdownStreams() {
        if (server.config().check().observe().shutdownSessions()) {
            backend.streams().shutdown(server, false);
        }
    }

    /**
     * {@code on-marked-up shutdown-backup-sessions}: a non-backup server that takes traffic again (UP, out of maintenance)
     * with a weight ends the streams of the backend's backup servers, as HAProxy's srv_shutdown_backup_streams.
     */
    private void shutdownBackupStreams() {
        if (server.config().check().observe().shutdownBackupSessions() && !server.backup() && server.weight() > 0
                && (adminState & Server.FORCED_DRAIN) == 0) {
            for (Server o : backend.servers()) {
                if (o.backup()) {
                    backend.streams().shutdown(o, true);
                }
            }
        }
    }

    /**
     * HAProxy's srv_update_status after a reported change (a transition, a weight change) of a server in forced drain: it
     * says the drain remains.
     */
    void remainsDrained() {
        if ((adminState & Server.FORCED_DRAIN) != 0 && (adminState & Server.FORCED_MAINT) == 0) {
            backend.events().report(ServerEvents.NOTICE, ServerEvents.name(server) + " remains in forced drain mode.", null);
        }
    }

    /** See {@link Server#checkedState}. */
    int checkedState(boolean value, boolean nolb, Server.Transition report) {
        if (up == value) {
            if (stopping != nolb) {
                stopping = nolb;
                lastChange = System.currentTimeMillis();
                backend.serversChangedQuietly();
                if (report != null) {
                    report.done(0);
                    remainsDrained();
                }
                backend.reportLoss();
            }
            return 0;
        }
        stopping = nolb;
        return setUp(value, report);
    }

    /**
     * Maintenance begins or ends for a checked server: its checks pause (health 0); when it ends the server is UP
     * again with the health at {@code rise}, so that its next check decides, as HAProxy does.
     */
    private void maintenanceChanged(boolean entering) {
        ServerHealthCheck c = check;
        if (c == null && server.agent() == null) {
            return;
        }
        if (c != null) {
            c.maintenance(entering);
        }
        // as HAProxy: leaving, the server is UP unless its agent (which maintenance does not pause) holds it down
        if (!entering && !up && !server.agentDown()) {
            up = true;
            lastChange = System.currentTimeMillis();
            downs.wentUp(lastChange);
        }
    }

    /** See {@link Server#setMaintenance}. */
    void setMaintenance(boolean value) {
        if (maintenance != value) {
            maintenance = value;
            maintenanceChanged(value);
            lastChange = System.currentTimeMillis();
            if (!value && up) {
                startWarmup();
                shutdownBackupStreams();
            }
            backend.serversChanged();
            if (value) {
                if (up) {
                    shutdownStreams();
                }
                backend.redistribute(server);
            }
        }
    }

    /** See {@link Server#adminState(int)}. */
    void adminState(int state) {
        // as HAProxy's srv_adm_set_ready and _drain, which clear FMAINT, the configuration's too
        boolean leavingConfigured = maintenance && (state & Server.FORCED_MAINT) == 0;
        if (state == adminState && !leavingConfigured) {
            return;
        }
        int before = adminState | (leavingConfigured ? Server.FORCED_MAINT : 0);
        boolean wasInConfiguredMaint = maintenance;
        if (leavingConfigured) {
            maintenance = false;
        }
        boolean leavingMaint = (before & Server.FORCED_MAINT) != 0 && (state & Server.FORCED_MAINT) == 0;
        boolean enteringMaint = (before & Server.FORCED_MAINT) == 0 && (state & Server.FORCED_MAINT) != 0;
        boolean enteringDrain = (before & Server.FORCED_DRAIN) == 0 && (state & Server.FORCED_DRAIN) != 0;
        boolean leavingDrain = (before & Server.FORCED_DRAIN) != 0 && (state & Server.FORCED_DRAIN) == 0;
        adminState = state;
        if (leavingMaint && !maintenance) {
            maintenanceChanged(false);
        } else if (enteringMaint && !maintenance) {
            maintenanceChanged(true);
        }
        lastChange = System.currentTimeMillis();
        if (leavingMaint && up && !maintenance) {
            startWarmup();
        }
        if ((state & Server.FORCED_MAINT) != 0) {
            checkHealth = 0;
        }
        backend.serversChangedQuietly();
        int requeued = (state & Server.FORCED_MAINT) != 0 ? backend.redistribute(server) : 0;
        // HAProxy's lines for what the CLI (or the stats page) did
        ServerEvents ev = backend.events();
        if (enteringMaint && !up) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " was DOWN and now enters maintenance.", null);
        } else if (enteringMaint) {
            ev.report(ServerEvents.ALERT, ServerEvents.name(server) + " is going DOWN for maintenance"
                    + ServerEvents.tail(server, true, requeued) + ".", null);
        } else if (leavingMaint) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " is " + (up ? "UP/READY" : "DOWN") + " (leaving forced maintenance).",
                    null);
        } else if (enteringDrain) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " enters drain state" + ServerEvents.tail(server, false, 0) + ".",
                    null, ServerEvents.NOTICE);
        } else if (leavingDrain) {
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " is " + (up ? "UP" : "DOWN") + " (leaving forced drain).", null);
        }
        backend.reportLoss();
        if (enteringMaint && up && !wasInConfiguredMaint) {
            shutdownStreams();
        } else if (leavingMaint && up && !maintenance) {
            shutdownBackupStreams();
        }
    }

    /**
     * The state a previous process saved for this server (a server state file), applied before traffic starts with HAProxy
     * 2.6's rules (srv_state_srv_update): the operational state (the health counter set to match), the forced maintenance
     * unless the configuration changed the server's {@code disabled}, a drain unless the configured weight went from 0 to
     * more, the time of the last change, the last check status and a disabled check, the weight unless the configured one
     * changed, the port and the check's port and address. Reports HAProxy's lines for what changed.
     */
    void restore(SavedServerState st) {
        ServerHealthCheck c = check;
        int rise = c != null ? c.rise() : 2;
        int fall = c != null ? c.fall() : 3;
        int health = st.checkHealth();
        int op = st.opState();
        ServerEvents ev = backend.events();
        // the maintenance this server will be in: the forced one of the file, unless the configuration changed 'disabled'
        boolean savedConfigured = (st.adminState() & SavedServerState.CMAINT) != 0;
        boolean savedForced = (st.adminState() & SavedServerState.FMAINT) != 0;
        boolean forcedMaint = false;
        boolean leaveConfigured = false;
        if (savedConfigured == configuredDisabled) {
            forcedMaint = savedForced && !configuredDisabled;
            leaveConfigured = !savedForced && configuredDisabled;
        }
        boolean inMaint = forcedMaint || configuredDisabled && !leaveConfigured;
        boolean downReport = false;
        if (op == SavedServerState.STOPPING && fall == 1 || op == SavedServerState.STOPPED) {
            health = 0;
            // a server in maintenance keeps its operational state aside: it is UP when the maintenance ends, as in HAProxy
            if (!inMaint) {
                up = false;
                downs.wentDown(System.currentTimeMillis());
            }
            // reported below, once the admin state is in place (the tail counts the servers left)
            downReport = true;
        } else if (op == SavedServerState.STARTING && rise > 1) {
            if (health < 1 || health >= rise) {
                health = rise - 1;
            }
        } else if (op == SavedServerState.STOPPING) {
            if (health < rise || health > rise + fall - 2) {
                health = rise;
            }
            stopping = true;
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " is stopping, changed from server-state after a reload"
                    + ServerEvents.tail(server, false, 0) + ".", null);
        } else {
            health = rise + fall - 1;
        }
        checkHealth = health;
        if (forcedMaint) {
            adminState = Server.FORCED_MAINT;
            checkHealth = 0;
            if (c != null) {
                c.maintenance(true);
            }
        } else if (leaveConfigured) {
            maintenance = false;
            if (c != null) {
                c.maintenance(false);
            }
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " is " + (up ? "UP/READY" : "DOWN") + " (leaving forced maintenance).",
                    null);
        }
        if (downReport) {
            ev.report(ServerEvents.ALERT, ServerEvents.name(server) + " is DOWN, changed from server-state after a reload"
                    + ServerEvents.tail(server, true, 0) + ".", null, ServerEvents.ALERT);
        }
        if (!inMaint && (st.adminState() & SavedServerState.FDRAIN) != 0 && (st.iweight() > 0 || server.initialWeight() == 0)) {
            adminState |= Server.FORCED_DRAIN;
            ev.report(ServerEvents.NOTICE, ServerEvents.name(server) + " remains in forced drain mode.", null);
        }
        lastChange = System.currentTimeMillis() - st.sinceLastChange() * 1000;
        if (c != null) {
            boolean disabled = (st.checkState() & SavedServerState.CHK_CONFIGURED) != 0 && (st.checkState() & SavedServerState.CHK_ENABLED) == 0;
            c.restore(inMaint ? 0 : health, st.checkStatus(), !disabled);
            if (st.checkPort() != 0) {
                c.port(st.checkPort());
            }
            if (st.checkAddr() != null && dev.sluice.config.Addresses.literal(st.checkAddr()) != null) {
                c.addr(dev.sluice.config.Addresses.literal(st.checkAddr()));
            }
        }
        ServerAgentCheck agent = server.agent();
        if (agent != null) {
            // as HAProxy: an agent disabled from the CLI stays disabled, its address and port as they were set
            if ((st.agentState() & SavedServerState.CHK_CONFIGURED) != 0 && (st.agentState() & SavedServerState.CHK_ENABLED) == 0) {
                agent.enabled(false);
            }
            if (st.agentAddr() != null && dev.sluice.config.Addresses.literal(st.agentAddr()) != null) {
                agent.addr(dev.sluice.config.Addresses.literal(st.agentAddr()));
            }
            if (st.agentPort() != 0) {
                agent.port(st.agentPort());
            }
        }
        if (st.iweight() == server.initialWeight()) {
            server.restoreWeight(st.uweight());
        }
        InetSocketAddress a = server.address();
        if (a.getPort() != st.port()) {
            server.address(unresolved(a) ? unresolvedAddress(st.port()) : new InetSocketAddress(a.getAddress(), st.port()));
        }
        backend.serversChanged();
    }
}
