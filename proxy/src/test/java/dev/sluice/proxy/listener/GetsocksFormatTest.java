package dev.sluice.proxy.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes of HAProxy 2.6's {@code _getsocks} answer, both ways. */
class GetsocksFormatTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void entriesAreTheNamesLengthPrefixedThenFourZeroBytes() {
        byte[] b = GetsocksFormat.entries(List.of(new GetsocksFormat.Names("", ""), new GetsocksFormat.Names("blue", "eth0"),
                new GetsocksFormat.Names("", "lo")));
        assertThat(HEX.formatHex(b)).isEqualTo("000000000000" + "04626c7565" + "0465746830" + "00000000" + "00" + "026c6f" + "00000000");
        assertThat(GetsocksFormat.parse(b, 3)).containsExactly(new GetsocksFormat.Names("", ""), new GetsocksFormat.Names("blue", "eth0"),
                new GetsocksFormat.Names("", "lo"));
    }

    @Test
    void readsWhatHaproxySent() {
        // HAProxy 2.6.12's answer for three TCP binds and its stats socket, none with an interface or a namespace
        byte[] fromHaproxy = HEX.parseHex("000000000000000000000000000000000000000000000000");
        assertThat(GetsocksFormat.parse(fromHaproxy, 4)).hasSize(4).allSatisfy(n -> {
            assertThat(n.namespace()).isEmpty();
            assertThat(n.iface()).isEmpty();
        });
    }

    @Test
    void theCountIsANativeInt() {
        byte[] four = GetsocksFormat.count(300);
        assertThat(four).hasSize(4);
        assertThat(GetsocksFormat.count(four)).isEqualTo(300);
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            assertThat(HEX.formatHex(four)).isEqualTo("2c010000");
        }
    }

    @Test
    void missingBytesAreAnInconsistencyAsHaproxySaysIt() {
        byte[] two = GetsocksFormat.entries(List.of(new GetsocksFormat.Names("", "eth0"), new GetsocksFormat.Names("", "")));
        for (int cut = 0; cut < two.length; cut++) {
            byte[] shorter = java.util.Arrays.copyOf(two, cut);
            assertThatThrownBy(() -> GetsocksFormat.parse(shorter, 2)).hasMessage("Inconsistency while transferring sockets");
        }
        // a name longer than what is left
        assertThatThrownBy(() -> GetsocksFormat.parse(HEX.parseHex("00ff41"), 1)).hasMessage("Inconsistency while transferring sockets");
    }

    @Test
    void aNameLongerThanAByteCanCountIsRefused() {
        assertThatThrownBy(() -> GetsocksFormat.entries(List.of(new GetsocksFormat.Names("x".repeat(256), ""))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
