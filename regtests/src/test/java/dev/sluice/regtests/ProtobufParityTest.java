package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code protobuf} and {@code ungrpc} converters against HAProxy 2.6 ({@link HaproxyParityTest#compareRecording}): every
 * wire type and requested type, nested fields, a field after a nested message without it, gRPC bodies of one and two
 * messages, truncated and malformed input. The messages are hand-made constants ({@code bin(<hex>)}).
 */
class ProtobufParityTest {
    /**
     * 1: varint 150; 2: "testing"; 3: {1: 42, 2: fixed32 7, 4: {5: "deep"}}; 4: fixed64 -2; 5: sint32 -3 (zigzag 5);
     * 6: float 3.75; 7: double -2.5; 8: int32 -1 (ten bytes); 9: sfixed32 -7; 3 again: {1: 43}.
     */
    private static final String MSG = "089601120774657374696e671a0f082a150700000022062a046465657021feffffffffffffff2805350000704039000000"
            + "00000004c040ffffffffffffffffff014df9ffffff1a02082b";

    /** Binary answers end in ",hex", integer ones not. */
    private static final String[] CASES = {
        "protobuf(1),hex", "protobuf(1,int32)", "protobuf(1,uint64)", "protobuf(2),hex", "protobuf(2,int32)",
        "protobuf(3),hex", "protobuf(3.1,int32)", "protobuf(3.2,fixed32)", "protobuf(3.2),hex", "protobuf(3.4.5),hex", "protobuf(3.9),hex",
        "protobuf(4,fixed64)", "protobuf(4,sfixed64)", "protobuf(5,sint32)", "protobuf(5,int32)", "protobuf(6,float)",
        "protobuf(7,double)", "protobuf(8,int32)", "protobuf(8,sint64)", "protobuf(8),hex", "protobuf(9,sfixed32)",
        "protobuf(9,fixed32)", "protobuf(10),hex", "protobuf(1,bool)", "protobuf(6,fixed32)", "protobuf(6),hex", "protobuf(7),hex",
    };

    private static String grpc(String hex) {
        return "00" + String.format("%08x", hex.length() / 2) + hex;
    }

    @Test
    void protobufAsHaproxy() throws Exception {
        List<String> exprs = new ArrayList<>();
        for (String c : CASES) {
            exprs.add("%[bin(" + MSG + ")," + c + "]");
        }
        // gRPC: one message; two messages, the field only in the second; a header longer than the body; a cut varint
        exprs.add("%[bin(" + grpc(MSG) + "),ungrpc(2),hex]");
        exprs.add("%[bin(" + grpc("0801") + grpc("1203616263") + "),ungrpc(2),hex]");
        exprs.add("%[bin(" + grpc("0801") + grpc("0802") + "),ungrpc(1,int32)]");
        exprs.add("%[bin(0000000010" + "0801" + "),ungrpc(1)]");
        exprs.add("%[bin(08ff),protobuf(1)]");
        exprs.add("%[bin(0a05616263),protobuf(1)]");
        exprs.add("%[bin(0b01),protobuf(1)]");
        exprs.add("%[bin(" + MSG + "),protobuf(1),length]");
        String config = """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                frontend fe
                    bind 127.0.0.1:@FE@
                    http-request return status 200 content-type text/plain lf-string "%s"
                """.formatted(String.join("|", exprs));
        List<String> theirs = HaproxyParityTest.compareRecording(config, List.of("fields"), ports -> {
            try (RawClient c = new RawClient(ports[0])) {
                return List.of(c.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().bodyText());
            }
        });
        String[] v = theirs.get(0).split("\\|", -1);
        assertThat(v).hasSize(exprs.size());
        // what HAProxy answered, for some of them (the compare holds Sluice to all)
        assertThat(v[0]).isEqualTo("9601");
        assertThat(v[1]).isEqualTo("150");
        assertThat(v[3]).isEqualTo("74657374696E67");
        assertThat(v[6]).isEqualTo("42");
        assertThat(v[13]).isEqualTo("-3");
    }
}
