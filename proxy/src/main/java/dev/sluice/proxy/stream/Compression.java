package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The response compression of one {@link Stream}: the algorithm its request asked for (chosen on its Accept-Encoding
 * when it leaves for the server), then the {@link Compressor} of the response, freed and counted once at the end.
 * Made only for a request that asked for an algorithm both ends offer ({@link #select}), so a stream without
 * compression allocates none. Owned by its stream, used on the stream's event loop only.
 */
final class Compression {
    private final Frontend frontend;
    private final RequestHead request;
    /** The algorithm chosen on the request. */
    private final String algo;
    private Compressor compressor;
    /** The response was compressed here (HAProxy's HTTP_MSGF_COMPRESSING: it stays once the compressor is freed). */
    private boolean compressed;

    private Compression(Frontend frontend, RequestHead request, String algo) {
        this.frontend = frontend;
        this.request = request;
        this.algo = algo;
    }

    /** The compression of a request, on its Accept-Encoding (see {@link Compressor#select}); null when none applies. */
    static Compression select(Frontend frontend, RequestHead request, Backend backend) {
        String algo = Compressor.select(backend.http().compression(), frontend.http().compression(), request);
        return algo == null ? null : new Compression(frontend, request, algo);
    }

    /**
     * Decides on the response as it came, before the response rules (HAProxy's compression filter decides there, so the
     * rules read {@code res.comp}): true when it is to be compressed; then {@link #start} after the rules.
     */
    boolean decide(Backend backend, ResponseHead head) {
        compressed = Compressor.eligible(algo, backend.http().compression(), frontend.http().compression(), request, head);
        return compressed;
    }

    /** After the response rules, for a response {@link #decide} chose: its headers for compression, and the compressor. */
    void start(Backend backend, ResponseHead head) {
        compressor = Compressor.start(algo, backend.http().compression(), frontend.http().compression(), head);
    }

    /** The algorithm the response is (or was) compressed with ({@code res.comp_algo}), null when it was not. */
    String algoUsed() {
        return compressed ? algo : null;
    }

    /** A piece of response body (ownership taken) as it goes to the client: compressed, or null when nothing goes yet. */
    ByteBuf compress(ByteBuf data) {
        if (compressor == null) {
            return data;
        }
        ByteBuf out = compressor.compress(data.alloc(), data);
        if (!out.isReadable()) {
            out.release();
            return null;
        }
        return out;
    }

    /** The frontend's name when its own settings compress (the backend has no algorithm), else null. */
    String byFrontend(Backend backend) {
        dev.sluice.config.model.Compression b = backend.http().compression();
        return b == null || b.algos().isEmpty() ? frontend.name() : null;
    }

    /** Whether the response is being compressed. */
    boolean active() {
        return compressor != null;
    }

    /** The end of the body: when compressing, the compressor's last bytes go to {@code client} and compression ends. */
    void finish(ClientSide client, Backend backend) {
        if (compressor == null) {
            return;
        }
        ByteBuf tail = compressor.finish(ByteBufAllocator.DEFAULT);
        if (tail != null) {
            client.sendBody(tail);
        }
        end(backend);
    }

    /** Ends compression (once, on every path): frees zlib's state and counts what went through it. */
    void end(Backend backend) {
        Compressor z = compressor;
        if (z == null) {
            return;
        }
        compressor = null;
        z.release();
        z.count(frontend.counters());
        if (backend != null) {
            z.count(backend.counters());
        }
    }
}
