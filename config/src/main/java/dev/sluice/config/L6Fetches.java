package dev.sluice.config;

import dev.sluice.config.model.Acl;
import dev.sluice.config.model.AclExpr;
import dev.sluice.config.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * HAProxy 2.6's layer-6 sample fetches (those that read the raw request or response buffer: {@code req.len},
 * {@code req.payload}, {@code req.ssl_sni}, ... and their ACL keywords) and where a condition using them can match, for
 * the messages HAProxy gives about them: the rules of a {@code tcp-request connection} or {@code session} rule set see no
 * buffer, a {@code tcp-request content} rule no response buffer, a {@code tcp-response content} rule no request buffer, and
 * an HTTP proxy ignores them altogether. Other fetches are left to the daemon's rule compiler. Static, read-only.
 */
public final class L6Fetches {
    private L6Fetches() {
    }

    /** Which buffer a fetch reads. */
    public enum Reads {
        REQUEST, RESPONSE, BOTH
    }

    /** Fetches and ACL keywords of the request buffer ({@code payload} and {@code payload_lv} are the request's as ACLs). */
    private static final Set<String> REQUEST = Set.of("req.len", "req_len", "req.payload", "req.payload_lv", "payload", "payload_lv",
            "req.rdp_cookie", "req.rdp_cookie_cnt", "rdp_cookie", "rdp_cookie_cnt", "req_rdp_cookie", "req_rdp_cookie_cnt",
            "req.ssl_ec_ext", "req.ssl_st_ext", "req.ssl_hello_type", "req_ssl_hello_type", "req.ssl_sni", "req_ssl_sni", "req.ssl_alpn",
            "req.ssl_ver", "req_ssl_ver");
    private static final Set<String> RESPONSE = Set.of("res.len", "res.payload", "res.payload_lv", "res.ssl_hello_type", "rep_ssl_hello_type");
    private static final Set<String> BOTH = Set.of("distcc_body", "distcc_param");

    /** What a sample expression or ACL keyword reads ({@code req.payload(0,3),hex} reads the request), null when not layer 6. */
    public static Reads reads(String sample) {
        String name = fetchName(sample);
        if (REQUEST.contains(name)) {
            return Reads.REQUEST;
        }
        if (RESPONSE.contains(name)) {
            return Reads.RESPONSE;
        }
        return BOTH.contains(name) ? Reads.BOTH : null;
    }

    /** The fetch keyword of a sample expression: up to its arguments or first converter. */
    static String fetchName(String sample) {
        int end = sample.length();
        for (int i = 0; i < sample.length(); i++) {
            char ch = sample.charAt(i);
            if (ch == '(' || ch == ',') {
                end = i;
                break;
            }
        }
        return sample.substring(0, end);
    }

    /** Where a rule runs, with HAProxy's name of the place ({@code sample_ckp_names}). */
    enum Place {
        CONNECTION("frontend tcp-request connection rule"),
        SESSION("frontend tcp-request session rule"),
        FRONTEND_CONTENT("frontend tcp-request content rule"),
        BACKEND_CONTENT("backend tcp-request content rule"),
        RESPONSE_CONTENT("backend tcp-response content rule");

        final String label;

        Place(String label) {
            this.label = label;
        }

        /** Whether a fetch reading {@code r} can give a value here. */
        boolean allows(Reads r) {
            return switch (this) {
                case CONNECTION, SESSION -> false;
                case FRONTEND_CONTENT, BACKEND_CONTENT -> r != Reads.RESPONSE;
                case RESPONSE_CONTENT -> r != Reads.REQUEST;
            };
        }
    }

    /** The expressions of a term: the named ACL's lines, a predefined ACL's expression, or the anonymous one. */
    static List<AclExpr> expressions(Condition.Term t, List<Acl> acls) {
        if (t.anonymous() != null) {
            return List.of(t.anonymous());
        }
        List<AclExpr> out = new ArrayList<>();
        for (Acl a : acls) {
            if (a.name().equals(t.aclName())) {
                out.add(a.expr());
            }
        }
        if (out.isEmpty()) {
            switch (t.aclName()) {
                case "REQ_CONTENT" -> out.add(new AclExpr("req.len", List.of(), List.of("gt", "0")));
                case "RDP_COOKIE" -> out.add(new AclExpr("req.rdp_cookie_cnt", List.of(), List.of("gt", "0")));
                default -> {
                }
            }
        }
        return out;
    }

    /** Whether a condition uses a layer-6 fetch (HAProxy's {@code SMP_USE_L6REQ|SMP_USE_L6RES}). */
    static boolean usedBy(Condition c, List<Acl> acls) {
        if (c == null) {
            return false;
        }
        for (List<Condition.Term> and : c.alternatives()) {
            for (Condition.Term t : and) {
                for (AclExpr e : expressions(t, acls)) {
                    if (reads(e.sample()) != null) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * HAProxy's warning about a tcp rule whose condition uses a layer-6 fetch that cannot give a value where the rule runs
     * ({@code acl_cond_conflicts}, then {@code acl_cond_kw_conflicts}), or null. {@code ruleset} is {@code tcp-request
     * connection} and the like.
     */
    static String conflict(Condition c, List<Acl> acls, Place place, String ruleset) {
        if (c == null) {
            return null;
        }
        // first a term none of whose expressions can match
        for (List<Condition.Term> and : c.alternatives()) {
            for (Condition.Term t : and) {
                List<AclExpr> exprs = expressions(t, acls);
                boolean any = exprs.isEmpty();
                for (AclExpr e : exprs) {
                    Reads r = reads(e.sample());
                    any |= r == null || place.allows(r);
                }
                if (!any) {
                    return t.aclName() != null
                            ? "acl '" + t.aclName() + "' will never match in '" + ruleset + "' because it only involves keywords that are"
                                    + " incompatible with '" + place.label + "'"
                            : "anonymous acl will never match in '" + ruleset + "' because it uses keyword '" + fetchName(exprs.get(0).sample())
                                    + "' which is incompatible with '" + place.label + "'";
                }
            }
        }
        // then a term one of whose expressions cannot
        for (List<Condition.Term> and : c.alternatives()) {
            for (Condition.Term t : and) {
                for (AclExpr e : expressions(t, acls)) {
                    Reads r = reads(e.sample());
                    if (r != null && !place.allows(r)) {
                        String kw = fetchName(e.sample());
                        return t.aclName() != null
                                ? "acl '" + t.aclName() + "' involves keyword '" + kw + "' which is incompatible with '" + place.label + "'"
                                : "anonymous acl involves keyword '" + kw + "' which is incompatible with '" + place.label + "'";
                    }
                }
            }
        }
        return null;
    }
}
