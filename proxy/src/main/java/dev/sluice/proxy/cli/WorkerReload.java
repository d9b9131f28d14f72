package dev.sluice.proxy.cli;

import dev.sluice.proxy.runtime.Generations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A reload inside a running worker: the master sends {@code reload} to the worker's own admin socket (the level-admin
 * one it gave it), and the worker reads its configuration files again in the same process. The answer comes once the
 * reload is done, in HAProxy 2.7's master-reload format: {@code Success=1} or {@code Success=0}, a line {@code --}, the
 * diagnostics one a line, then the CLI's empty line. A worker without the command (an older one) answers
 * {@code Unknown command...}: the master then starts a new worker, as it does when the program changed. Used by the
 * master's reload thread; nothing shared.
 */
final class WorkerReload {
    private WorkerReload() {
    }

    /** How a reload request ended. */
    sealed interface Outcome permits Done, Unsupported, Failed {
    }

    /** The worker reloaded ({@code success}) or kept its configuration; its diagnostics, one a line. */
    record Done(boolean success, List<String> diagnostics) implements Outcome {
    }

    /** The worker cannot reload in place (it does not know the command, or its socket cannot be reached): why. */
    record Unsupported(String why) implements Outcome {
    }

    /** The worker answered something else, nothing, or not in time: whether it reloaded is not known. Why. */
    record Failed(String why) implements Outcome {
    }

    /**
     * The command, as the worker's admin socket reads it: a change of a setting only a new process applies (nbthread,
     * cpu-map, tune.maxpollevents) is then answered {@code Restart=1} and the reasons, and not loaded.
     */
    static final String COMMAND = "reload " + Generations.IN_PLACE_ONLY;

    /** Asks the worker {@code pid} at {@code socket} to reload; waits for its answer up to {@code timeoutMs}. */
    static Outcome request(long pid, Path socket, long timeoutMs) {
        String answer;
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                return new Unsupported("cannot reach the admin socket of the worker (" + pid + "): " + e.getMessage());
            }
            ch.write(ByteBuffer.wrap((COMMAND + "\n").getBytes(StandardCharsets.US_ASCII)));
            // no other command follows: the worker's session ends with its answer
            ch.shutdownOutput();
            answer = readAll(ch, timeoutMs);
        } catch (IOException e) {
            return new Failed("the worker (" + pid + ") did not answer the reload: " + e.getMessage());
        }
        if (answer == null) {
            String within = timeoutMs % 1000 == 0 ? timeoutMs / 1000 + " s" : timeoutMs + " ms";
            return new Failed("the worker (" + pid + ") did not answer the reload within " + within);
        }
        return read(pid, answer);
    }

    /** What the worker's answer says. */
    static Outcome read(long pid, String answer) {
        List<String> lines = answer.lines().toList();
        if (lines.isEmpty()) {
            return new Failed("the worker (" + pid + ") ended its admin session without answering the reload");
        }
        String first = lines.get(0);
        if (first.startsWith("Unknown command") || first.startsWith("'reload' takes no argument")) {
            return new Unsupported("the worker (" + pid + ") cannot reload in place");
        }
        if (first.equals("Restart=1")) {
            List<String> what = lines.stream().skip(1).filter(l -> !l.isEmpty() && !l.equals("--")).toList();
            return new Unsupported("the configuration changes " + String.join(", ", what) + ", which only a new worker applies");
        }
        if (!first.equals("Success=1") && !first.equals("Success=0")) {
            return new Failed("the worker (" + pid + ") answered the reload with '" + first + "'");
        }
        List<String> diags = new ArrayList<>();
        int i = 1;
        if (i < lines.size() && lines.get(i).equals("--")) {
            i++;
        }
        // the diagnostics end at the CLI's empty line
        for (; i < lines.size() && !lines.get(i).isEmpty(); i++) {
            diags.add(lines.get(i));
        }
        return new Done(first.equals("Success=1"), List.copyOf(diags));
    }

    /** Everything the worker sends until it ends the session (it does after its answer); null when {@code timeoutMs} passed first. */
    private static String readAll(SocketChannel ch, long timeoutMs) throws IOException {
        ch.configureBlocking(false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(8192);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        try (Selector selector = Selector.open()) {
            ch.register(selector, SelectionKey.OP_READ);
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    return null;
                }
                selector.select(left);
                selector.selectedKeys().clear();
                int n;
                while ((n = ch.read(buf.clear())) > 0) {
                    out.write(buf.array(), 0, n);
                }
                if (n < 0) {
                    return out.toString(StandardCharsets.UTF_8);
                }
            }
        }
    }
}
