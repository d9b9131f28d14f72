package dev.sluice.proxy.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Userlist;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class UserlistsTest {
    static final SourceRef AT = new SourceRef("t.cfg", 1);
    static final String SHA512 = "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1";

    static byte[] pw(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void groupsComeFromBothSides() {
        Userlists u = Userlists.compile(List.of(new Userlist(AT, "ul", List.of(new Userlist.User(AT, "a", "x", true, List.of("g2"))),
                List.of(new Userlist.Group(AT, "g1", List.of("a")), new Userlist.Group(AT, "g2", List.of())))));
        assertThat(u.get("ul").authenticate("a", pw("x")).groups()).containsExactlyInAnyOrder("g1", "g2");
        assertThat(u.get("nope")).isNull();
    }

    /** A password that verified once is recognised from its fingerprint: far below the 5 ms of a SHA-512 crypt. */
    @Test
    void verifiedPasswordsAreRemembered() {
        Userlists u = Userlists.compile(List.of(new Userlist(AT, "ul", List.of(new Userlist.User(AT, "a", SHA512, false, List.of())),
                List.of())));
        Userlists.Users ul = u.get("ul");
        assertThat(ul.authenticate("a", pw("secret"))).isNotNull();
        long t = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            assertThat(ul.authenticate("a", pw("secret"))).isNotNull();
        }
        long perCall = (System.nanoTime() - t) / 1000;
        assertThat(perCall).as("ns per cached check").isLessThan(1_000_000);
        // a wrong password is never taken from the cache, and does not evict the right one
        assertThat(ul.authenticate("a", pw("secreT"))).isNull();
        assertThat(ul.authenticate("a", pw("secret"))).isNotNull();
    }
}
