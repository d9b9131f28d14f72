package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code node} and {@code description}: the global ones in {@code show info} (the description line only when one is set,
 * as HAProxy 2.6 prints it) and on the stats page ({@code stats show-node}, {@code stats show-desc} without text), a
 * proxy's beside its name on the page.
 */
class DescriptionTest {

    private static String config(int port, boolean described) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                %s
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:%d
                    description Front end of "the shop"
                    stats enable
                    stats uri /stats
                    stats show-node
                    stats show-desc
                    default_backend be
                backend be
                    description The application servers
                    server s1 127.0.0.1:9
                """.formatted(described ? "    node shop-lb-1\n    description Load balancer of the shop" : "", port);
    }

    /** The node and description lines of show info. */
    private static List<String> info(Daemon d) {
        return AdminClient.run(d.dir().resolve("admin.sock"), "show info\n").lines()
                .filter(l -> l.startsWith("node:") || l.startsWith("description:")).toList();
    }

    @Test
    void nodeAndDescriptionsAppearWhereHaproxyShowsThem() throws Exception {
        int port = Ports.free();
        List<String> sluice;
        try (Daemon d = Daemon.start(false, config(port, true), port)) {
            sluice = info(d);
            assertThat(sluice).containsExactly("node: shop-lb-1", "description: Load balancer of the shop");
            try (RawClient c = new RawClient(port, 5_000)) {
                String page = c.send("GET /stats HTTP/1.1\r\nhost: x\r\n\r\n").read().bodyText();
                assertThat(page).contains(" on shop-lb-1</h1>").contains("<p>Load balancer of the shop</p>")
                        .contains("The application servers").contains("Front end of the shop");
            }
        }
        int port2 = Ports.free();
        try (Daemon d = Daemon.start(false, config(port2, false), port2)) {
            assertThat(info(d)).hasSize(1).allMatch(l -> l.startsWith("node: ") && !l.equals("node: "));
        }
    }

    /** HAProxy 2.6 shows the node and description lines {@link #nodeAndDescriptionsAppearWhereHaproxyShowsThem} expects. */
    @Test
    void haproxyShowsTheSameLines() throws Exception {
        Program.HAPROXY.require();
        int hport = Ports.free();
        try (Daemon h = Daemon.start(true, config(hport, true), hport)) {
            assertThat(info(h)).as("HAProxy 2.6").containsExactly("node: shop-lb-1", "description: Load balancer of the shop");
        }
    }
}
