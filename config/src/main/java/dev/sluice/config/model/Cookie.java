package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A backend's persistence cookie ({@code cookie <name> [rewrite|insert|prefix] [indirect] [nocache] [postonly]
 * [preserve] [httponly] [secure] [domain <d>]* [maxidle <t>] [maxlife <t>] [dynamic] [attr <v>]*}), as HAProxy 2.6
 * reads it. {@code domain} is what follows {@code ; domain=} in an inserted cookie (several domains joined with
 * {@code "; domain="}), {@code attrs} what follows its last {@code "; "} (several joined with {@code "; "}); both
 * null when absent. {@code maxIdle} and {@code maxLife} are in seconds, 0 when unset. {@code dynamicKey} is the
 * proxy's {@code dynamic-cookie-key} (null: none), which {@code dynamic} needs to give servers without a
 * {@code cookie} one.
 */
public record Cookie(SourceRef where, String name, Mode mode, boolean indirect, boolean nocache, boolean postonly, boolean preserve,
        boolean httponly, boolean secure, String domain, int maxIdle, int maxLife, boolean dynamic, String attrs, String dynamicKey) {

    /** Where the server's identifier goes. */
    public enum Mode {
        /** No mode keyword: the cookie is only read, never set or changed (apart from {@code indirect}). */
        PASSIVE,
        /** {@code rewrite}: the server sets the cookie, the proxy puts the server's value in it. */
        REWRITE,
        /** {@code insert}: the proxy sets the cookie in responses. */
        INSERT,
        /** {@code prefix}: an application cookie carries the server's value in front of its own, with a '~'. */
        PREFIX
    }

    /**
     * Whether the log's two cookie flags of {@code %tsc} apply (HAProxy's {@code PR_CK_ANY}: a mode or
     * {@code indirect}); a passive cookie leaves them as "--".
     */
    public boolean logsFlags() {
        return mode != Mode.PASSIVE || indirect;
    }

    public Cookie withDynamicKey(String key) {
        return new Cookie(where, name, mode, indirect, nocache, postonly, preserve, httponly, secure, domain, maxIdle, maxLife, dynamic, attrs,
                key);
    }
}
