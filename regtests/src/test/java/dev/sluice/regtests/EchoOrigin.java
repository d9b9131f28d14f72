package dev.sluice.regtests;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * An origin handler that answers with what it received (origin name, request line, header fields in
 * order, body), plus {@code x-srv} and {@code set-cookie} naming it: what rule tests look at. A request
 * with {@code x-delay: <ms>} is answered that much later (server timeouts).
 */
final class EchoOrigin {
    private EchoOrigin() {
    }

    static Origin start(String name) {
        return Origin.start(name, (r, out) -> echo(name, r, out));
    }

    private static boolean echo(String name, Origin.Request r, OutputStream out) throws IOException {
        String delay = r.header("x-delay");
        if (delay != null) {
            try {
                Thread.sleep(Long.parseLong(delay.strip()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        StringBuilder sb = new StringBuilder("srv=").append(name).append('\n').append(r.method()).append(' ').append(r.target()).append(' ').append(r.version()).append('\n');
        for (String[] f : r.head().fields()) {
            sb.append(f[0].toLowerCase(java.util.Locale.ROOT)).append(": ").append(f[1]).append('\n');
        }
        byte[] head = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = new byte[head.length + r.body().length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(r.body(), 0, body, head.length, r.body().length);
        Origin.respond(out, 200, "OK", Origin.headers("content-type", "text/plain", "x-srv", name, "set-cookie", "SRV=" + name), body);
        return true;
    }
}
