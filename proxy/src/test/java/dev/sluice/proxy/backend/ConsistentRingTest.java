package dev.sluice.proxy.backend;

import static dev.sluice.proxy.backend.Requests.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** HAProxy's consistent-hashing ring. */
class ConsistentRingTest {

    private static ConsistentRing ring(Backend b) {
        return (ConsistentRing) ((HashBalance) b.lb()).table();
    }

    @Test
    void sixteenPointsPerUnitOfWeight() {
        Backend b = Backends.of("balance uri\nhash-type consistent\n" + Backends.servers("", 1, 2, 5));
        assertThat(ring(b).points()).isEqualTo(16 * 8);
        Backends.server(b, "s3").setUp(false);
        assertThat(ring(b).points()).isEqualTo(16 * 3);
    }

    @Test
    void aServerGoingDownOnlyMovesItsOwnKeys() {
        Backend b = Backends.of("balance uri\nhash-type consistent\n" + Backends.servers("", 1, 1, 1, 1, 1));
        ConsistentRing r = ring(b);
        Random rnd = new Random(1);
        int[] hashes = rnd.ints(2000).toArray();
        Map<Integer, String> before = new HashMap<>();
        for (int h : hashes) {
            before.put(h, r.lookup(h).name());
        }
        Backends.server(b, "s3").setUp(false);
        int moved = 0;
        for (int h : hashes) {
            String now = r.lookup(h).name();
            assertThat(now).isNotEqualTo("s3");
            if (!before.get(h).equals("s3")) {
                assertThat(now).as("hash %d", h).isEqualTo(before.get(h));
            } else {
                moved++;
            }
        }
        assertThat(moved).isBetween(200, 700);
    }

    @Test
    void weightsShareTheRing() {
        Backend b = Backends.of("balance uri\nhash-type consistent\n" + Backends.servers("", 1, 3));
        ConsistentRing r = ring(b);
        Random rnd = new Random(2);
        int s2 = 0;
        for (int i = 0; i < 40_000; i++) {
            if (r.lookup(rnd.nextInt()).name().equals("s2")) {
                s2++;
            }
        }
        // 3/4 in expectation; 64 points do not split the ring exactly
        assertThat(s2).isBetween(25_000, 35_000);
    }

    @Test
    void firstBackupTakesEverythingWithoutAllbackups() {
        Backend b = Backends.of("balance uri\nhash-type consistent\nserver a\nserver b backup\nserver c backup");
        Backends.server(b, "a").setUp(false);
        assertThat(ring(b).points()).isZero();
        assertThat(Requests.names(b, get("/1"), get("/2"), get("/3"))).isEqualTo("b b b");
        Backend all = Backends.of("balance uri\nhash-type consistent\noption allbackups\nserver a\nserver b backup\nserver c backup");
        Backends.server(all, "a").setUp(false);
        assertThat(ring(all).points()).isEqualTo(32);
    }

    @Test
    void emptyRingGivesNoServer() {
        Backend b = Backends.of("balance uri\nhash-type consistent\nserver a weight 0");
        assertThat(b.pickServer(get("/x"))).isNull();
        assertThat(b.pickServer()).isNull();
    }
}
