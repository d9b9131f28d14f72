package dev.sluice.proxy.rules;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.proxy.http.RequestHead;
import io.netty.util.AsciiString;
import java.net.InetAddress;

/**
 * {@code option forwardfor}: appends the client address as its own field line (HAProxy never merges it
 * into an existing list), unless the client is in the {@code except} network or {@code if-none} finds
 * the field already there. Compiled once per proxy; immutable.
 */
public final class ForwardFor {
    private final AsciiString name;
    private final Network except;
    private final boolean ifNone;

    public ForwardFor(HttpOptions.ForwardFor config) {
        this.name = AsciiString.cached(config.header().toLowerCase(java.util.Locale.ROOT));
        this.except = config.except() == null ? null : Network.parse(config.except());
        this.ifNone = config.ifNone();
    }

    public void apply(RequestHead request, InetAddress client) {
        if (client == null) {
            // a client on a UNIX socket: HAProxy adds the field for IPv4 and IPv6 clients only
            return;
        }
        if (ifNone && request.fields().contains(name)) {
            return;
        }
        if (except != null && except.contains(client)) {
            return;
        }
        request.fields().add(name, AsciiString.of(Network.format(client)));
    }
}
