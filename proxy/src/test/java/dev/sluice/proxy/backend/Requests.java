package dev.sluice.proxy.backend;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.rules.Txn;
import io.netty.util.AsciiString;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Test helper: requests as the hash algorithms see them. */
final class Requests {
    private Requests() {
    }

    static final class FakeTxn extends dev.sluice.proxy.rules.RequestTxn {
        FakeTxn(RequestHead request, InetSocketAddress client) {
            super(request, client, new InetSocketAddress(InetAddress.getLoopbackAddress(), 80), "fe", "be");
        }
    }

    /** GET {@code target} from 127.0.0.1 with header lines "name: value". */
    static Txn get(String target, String... headers) {
        return from("127.0.0.1", target, headers);
    }

    static Txn from(String ip, String target, String... headers) {
        HttpFields f = new HttpFields();
        for (String h : headers) {
            int c = h.indexOf(':');
            f.add(h.substring(0, c).strip(), h.substring(c + 1).strip());
        }
        // the target as a view into a larger buffer, as the parser leaves it
        byte[] raw = ("GET " + target + " HTTP/1.1").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        AsciiString t = new AsciiString(raw, 4, target.length(), false);
        try {
            return new FakeTxn(new RequestHead(AsciiString.of("GET"), t, HttpVersion.HTTP_1_1, f),
                    new InetSocketAddress(InetAddress.getByName(ip), 40000));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The server names the backend picks for these requests, slots given back at once. */
    static String names(Backend b, Txn... requests) {
        StringBuilder sb = new StringBuilder();
        for (Txn t : requests) {
            Server s = b.pickServer(t);
            sb.append(sb.isEmpty() ? "" : " ").append(s == null ? "-" : s.name());
            if (s != null) {
                s.streamEnded();
            }
        }
        return sb.toString();
    }

    static Txn[] paths(String... targets) {
        Txn[] out = new Txn[targets.length];
        for (int i = 0; i < targets.length; i++) {
            out[i] = get(targets[i]);
        }
        return out;
    }
}
