package dev.sluice.config;

import java.util.Set;

/** Names HAProxy predefines, which a configuration may use without declaring them. */
public final class Predefined {
    private Predefined() {
    }

    /** The predefined ACLs. */
    public static final Set<String> ACLS = Set.of("FALSE", "HTTP", "HTTP_1.0", "HTTP_1.1", "HTTP_2.0", "HTTP_3.0", "HTTP_CONTENT",
            "HTTP_URL_ABS", "HTTP_URL_SLASH", "HTTP_URL_STAR", "LOCALHOST", "METH_CONNECT", "METH_DELETE", "METH_GET", "METH_HEAD",
            "METH_OPTIONS", "METH_POST", "METH_PUT", "METH_TRACE", "RDP_COOKIE", "REQ_CONTENT", "TRUE", "WAIT_END");
}
