package dev.sluice.proxy.check;

import dev.sluice.config.model.Bind;
import dev.sluice.config.model.HealthChecks.ExternalCheck;
import dev.sluice.config.model.ListenAddress;
import dev.sluice.config.model.Mode;
import dev.sluice.proxy.backend.Server;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One external check ({@code option external-check}), as HAProxy 2.6's extcheck.c runs it: the command with the arguments
 * {@code <proxy_address> <proxy_port> <server_address> <server_port>} and only HAProxy's environment variables (PATH from
 * {@code external-check path}, HAPROXY_PROXY_* and HAPROXY_SERVER_*); exit status 0 is PROCOK, another PROCERR with the
 * status as the check's code; still running after {@code inter} (MIN(inter, timeout connect) with {@code timeout check})
 * it is sent SIGTERM and the check is PROCTOUT. Without {@code insecure-fork-wanted} nothing is started: HAProxy's fork
 * fails then (SOCKERR, "Resource temporarily unavailable", and its alert).
 * <p>
 * Threads: the process is started on one shared spawner thread (starting a program may take a while), its end is
 * watched by {@link Process#onExit()}, and every result is handed to the check's event loop; the loop never waits.
 */
final class ExternalCheckRun implements CheckAttempt {
    /** Starts the programs of every external check, one at a time, off the event loops. */
    private static final ExecutorService SPAWNER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sluice-extcheck");
        t.setDaemon(true);
        return t;
    });
    private static final long PID = ProcessHandle.current().pid();

    private final HealthCheck check;
    private final ExternalCheck config;
    private Process process;
    private ScheduledFuture<?> timer;
    private boolean done;

    ExternalCheckRun(HealthCheck check, ExternalCheck config) {
        this.check = check;
        this.config = config;
    }

    @Override
    public void start() {
        List<String> argv = arguments(check.server(), config);
        Map<String, String> env = environment(check.server(), config, argv);
        CheckPlan plan = check.plan();
        long inter = check.server().config().check().inter();
        long limit = plan.timeoutCheck() > 0 && plan.timeoutConnect() > 0 ? Math.min(inter, plan.timeoutConnect()) : inter;
        timer = check.loop().schedule(this::expired, limit, TimeUnit.MILLISECONDS);
        SPAWNER.execute(() -> spawn(argv, env));
    }

    /** On the spawner thread: starts the program, then watches its end. */
    private void spawn(List<String> argv, Map<String, String> env) {
        if (!config.forkAllowed()) {
            System.err.println("[ALERT]    (" + PID + ") : Failed to fork process for external health check (likely caused by missing"
                    + " 'insecure-fork-wanted'): Resource temporarily unavailable. Aborting.");
            check.loop().execute(() -> finish(CheckStatus.SOCKERR, 0, "Resource temporarily unavailable"));
            return;
        }
        String exe = executable(argv.getFirst(), config.path());
        Process p;
        try {
            List<String> cmd = new ArrayList<>(argv);
            cmd.set(0, exe);
            ProcessBuilder b = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
            b.environment().clear();
            b.environment().putAll(env);
            p = b.start();
        } catch (IOException | RuntimeException e) {
            // HAProxy's child fails its execvp and exits with -1 (255)
            System.err.println("[ALERT]    (" + PID + ") : Failed to exec process for external health check: " + execError(e) + ". Aborting.");
            check.loop().execute(() -> finish(CheckStatus.PROCERR, 255, ""));
            return;
        }
        check.loop().execute(() -> {
            if (done) {
                p.destroy();
                return;
            }
            process = p;
        });
        p.onExit().thenAccept(x -> check.loop().execute(() -> exited(x)));
    }

    private void exited(Process p) {
        if (done) {
            return;
        }
        int code = p.exitValue();
        finish(code == 0 ? CheckStatus.PROCOK : CheckStatus.PROCERR, code, "");
    }

    private void expired() {
        if (done) {
            return;
        }
        Process p = process;
        if (p != null) {
            System.err.println("[WARNING]  (" + PID + ") : kill " + p.pid());
            p.destroy();
        }
        finish(CheckStatus.PROCTOUT, 0, "");
    }

    private void finish(CheckStatus status, int code, String desc) {
        if (done) {
            return;
        }
        done = true;
        if (timer != null) {
            timer.cancel(false);
        }
        check.completed(this, new Expectations.Outcome(status, code, desc));
    }

    @Override
    public void abandon() {
        done = true;
        if (timer != null) {
            timer.cancel(false);
        }
        if (process != null) {
            process.destroy();
        }
    }

    /** {@code argv}: the command as configured, the proxy's first listener's address and port (NOT_USED without one), the server's. */
    static List<String> arguments(Server s, ExternalCheck config) {
        String addr = "NOT_USED";
        String port = "NOT_USED";
        for (Bind b : s.backend().config().binds()) {
            if (b.address() instanceof ListenAddress.Inet in) {
                String h = in.host();
                addr = h.isEmpty() || h.equals("*") ? "0.0.0.0" : h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
                port = Integer.toString(in.port());
                break;
            }
            if (b.address() instanceof ListenAddress.Unix u) {
                addr = u.path();
                break;
            }
        }
        InetSocketAddress a = s.address();
        return List.of(config.command(), addr, port, a.getAddress().getHostAddress(), Integer.toString(a.getPort()));
    }

    /** HAProxy's environment of an external check, and nothing else. */
    static Map<String, String> environment(Server s, ExternalCheck config, List<String> argv) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", config.path());
        env.put("HAPROXY_PROXY_NAME", s.backend().name());
        env.put("HAPROXY_PROXY_ID", Integer.toString(s.backend().id()));
        env.put("HAPROXY_PROXY_ADDR", argv.get(1));
        env.put("HAPROXY_PROXY_PORT", argv.get(2));
        env.put("HAPROXY_SERVER_NAME", s.name());
        env.put("HAPROXY_SERVER_ID", Integer.toString(s.id()));
        env.put("HAPROXY_SERVER_ADDR", argv.get(3));
        env.put("HAPROXY_SERVER_PORT", argv.get(4));
        env.put("HAPROXY_SERVER_MAXCONN", Integer.toString(Math.max(0, s.maxconn())));
        env.put("HAPROXY_SERVER_CURCONN", Integer.toString(s.currentSessions()));
        env.put("HAPROXY_SERVER_SSL", s.tls() != null ? "1" : "0");
        env.put("HAPROXY_SERVER_PROTO", s.backend().config().mode() == Mode.TCP ? "tcp" : s.forcesH2() ? "h2" : "h1");
        return env;
    }

    /** execvp's search: a name with '/' as is, else the first executable file of that name in {@code path}. */
    static String executable(String command, String path) {
        if (command.indexOf('/') >= 0) {
            return command;
        }
        for (String dir : path.split(":", -1)) {
            File f = new File(dir.isEmpty() ? "." : dir, command);
            if (f.isFile() && f.canExecute()) {
                return f.getPath();
            }
        }
        return command;
    }

    private static String execError(Exception e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        int i = m.indexOf("error=");
        if (i >= 0) {
            int comma = m.indexOf(", ", i);
            return comma >= 0 ? m.substring(comma + 2) : m;
        }
        return m;
    }
}
