package dev.sluice.config;

import dev.sluice.config.model.Condition;
import dev.sluice.config.model.Userlist;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The {@code userlist} section ({@code user}, {@code group}) and the frontend's {@code monitor-uri} and
 * {@code monitor fail}. Password hashes are checked here for a crypt(3) format Sluice can verify.
 */
final class UserlistKeywords {
    private UserlistKeywords() {
    }

    /** A {@code userlist} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        final List<Userlist.User> users = new ArrayList<>();
        final List<Userlist.Group> groups = new ArrayList<>();

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }

        Userlist build() {
            return new Userlist(where, name, users, groups);
        }
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("user", EnumSet.of(Section.GLOBAL, Section.USERLIST),
                "user <user name> (global) | user <name> [password <crypt hash> | insecure-password <password>] [groups <group>[,<group>...]]"
                        + " (userlist)",
                "In global: run as this user once the listeners are bound (looked up when the daemon starts, and by -c). In a userlist:"
                        + " declare a user; the hash is a crypt(3) SHA-512 ($6$), SHA-256 ($5$) or MD5 ($1$) one, as 'openssl passwd -6|-5|-1' makes.",
                c -> {
                    if (c.section() == Section.GLOBAL) {
                        ProcessKeywords.globalUser(c);
                    } else {
                        user(c);
                    }
                }));
        r.register(new Keyword("group", EnumSet.of(Section.GLOBAL, Section.USERLIST),
                "group <group name> (global) | group <name> [users <user>[,<user>...]] (userlist)",
                "In global: run with this group (supplementary groups dropped) once the listeners are bound. In a userlist: declare a"
                        + " group, optionally with its users.",
                c -> {
                    if (c.section() == Section.GLOBAL) {
                        ProcessKeywords.globalGroup(c);
                    } else {
                        group(c);
                    }
                }));
        r.register(new Keyword("monitor-uri", Section.PROXIES, "monitor-uri <uri>",
                "Answer requests for exactly this URI with 200 (or 503 after 'monitor fail') before any rule; they are not forwarded nor logged.",
                UserlistKeywords::monitorUri));
        r.register(new Keyword("option http-use-proxy-header", Section.FRONTEND_SIDE, "[no] option http-use-proxy-header",
                "For requests with an absolute URI (a client using the proxy as a proxy): 'http-request auth' answers 407 with"
                        + " Proxy-Authenticate and http_auth reads Proxy-Authorization (its only effect in Sluice so far).",
                c -> {
                    if (c.expectArgs(0, 0, "option http-use-proxy-header")) {
                        c.proxy().useProxyHeader = !c.negated();
                    }
                }));
        r.family("monitor", "monitor");
        r.register(new Keyword("monitor fail", EnumSet.of(Section.FRONTEND, Section.LISTEN), "monitor fail if|unless <condition>",
                "Make the monitor URI answer 503 when the condition holds.", UserlistKeywords::monitorFail));
    }

    private static void user(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing user name; expected: user <name> [password <hash> | insecure-password <password>] [groups <groups>]");
            return;
        }
        Builder ul = c.currentUserlist();
        String name = a.get(0);
        for (Userlist.User u : ul.users) {
            if (u.name().equals(name)) {
                c.warning("ignoring duplicated user '" + name + "' in userlist '" + ul.name + "'.");
                return;
            }
        }
        String password = null;
        boolean insecure = false;
        List<String> groups = new ArrayList<>();
        for (int i = 1; i < a.size(); i += 2) {
            String opt = a.get(i);
            if (!opt.equals("password") && !opt.equals("insecure-password") && !opt.equals("groups")) {
                c.error("'user' only supports 'password', 'insecure-password' and 'groups' options (got '" + opt + "').");
                return;
            }
            if (i + 1 >= a.size()) {
                c.error("'" + opt + "' expects a value.");
                return;
            }
            String v = a.get(i + 1);
            if (opt.equals("groups")) {
                groups.addAll(list(v));
                continue;
            }
            if (password != null) {
                c.error("user '" + name + "' has two passwords.");
                return;
            }
            password = v;
            insecure = opt.equals("insecure-password");
            if (!insecure) {
                String problem = checkHash(v);
                if (problem != null && !v.startsWith("$") && unsupportedFormat(v).equals(NOT_A_HASH)) {
                    // no crypt(3) method reads it as a hash: HAProxy accepts it and never authenticates the user; so does Sluice
                    c.warning("password of user '" + name + "' is not a crypt(3) hash: this user can never be authenticated"
                            + " (use a hash made by 'openssl passwd -6', or 'insecure-password').");
                    problem = null;
                }
                if (problem != null) {
                    c.error("password of user '" + name + "' " + problem);
                    return;
                }
            }
        }
        ul.users.add(new Userlist.User(c.at(), name, password, insecure, groups));
    }

    private static void group(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("missing group name; expected: group <name> [users <user>[,<user>...]]");
            return;
        }
        Builder ul = c.currentUserlist();
        String name = a.get(0);
        for (Userlist.Group g : ul.groups) {
            if (g.name().equals(name)) {
                c.warning("ignoring duplicated group '" + name + "' in userlist '" + ul.name + "'.");
                return;
            }
        }
        List<String> users = new ArrayList<>();
        for (int i = 1; i < a.size(); i += 2) {
            if (!a.get(i).equals("users")) {
                c.error("'group' only supports the 'users' option (got '" + a.get(i) + "').");
                return;
            }
            if (i + 1 >= a.size()) {
                c.error("'users' expects a comma-separated list of users.");
                return;
            }
            users.addAll(list(a.get(i + 1)));
        }
        ul.groups.add(new Userlist.Group(c.at(), name, users));
    }

    private static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split(",")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Why a {@code password} value is not a crypt(3) hash Sluice verifies, or null when it is one:
     * MD5 ({@code $1$}), SHA-256 ({@code $5$}) or SHA-512 ({@code $6$}, optionally with
     * {@code rounds=<n>$}), each with a well-formed salt and digest.
     */
    static String checkHash(String h) {
        String id = h.startsWith("$1$") ? "1" : h.startsWith("$5$") ? "5" : h.startsWith("$6$") ? "6" : null;
        if (id == null) {
            return "is " + unsupportedFormat(h) + ", which Sluice cannot verify; use a SHA-512 crypt hash ('$6$', made by"
                    + " 'openssl passwd -6' or 'mkpasswd -m sha-512'), SHA-256 ('$5$', 'openssl passwd -5') or MD5 ('$1$', 'openssl passwd -1'),"
                    + " or 'insecure-password'.";
        }
        String what = id.equals("1") ? "MD5" : id.equals("5") ? "SHA-256" : "SHA-512";
        String rest = h.substring(3);
        if (!id.equals("1") && rest.startsWith("rounds=")) {
            int d = rest.indexOf('$');
            if (d < 0 || !rest.substring(7, d).matches("\\d{1,9}")) {
                return "is a malformed " + what + " crypt hash (bad 'rounds=').";
            }
            rest = rest.substring(d + 1);
        }
        int d = rest.indexOf('$');
        int digest = id.equals("1") ? 22 : id.equals("5") ? 43 : 86;
        if (d < 0 || d > (id.equals("1") ? 8 : 16) || rest.length() - d - 1 != digest || !rest.substring(d + 1).matches("[./0-9A-Za-z]+")) {
            return "is a malformed " + what + " crypt hash (expected '$" + id + "$<salt>$<" + digest + " characters>').";
        }
        return null;
    }

    private static final String NOT_A_HASH = "not a crypt(3) hash in a known format";

    private static String unsupportedFormat(String h) {
        if (h.matches("\\$2[abxy]?\\$.*")) {
            return "a bcrypt hash ('" + h.substring(0, h.indexOf('$', 1) + 1) + "')";
        }
        if (h.startsWith("$y$")) {
            return "a yescrypt hash ('$y$')";
        }
        if (h.startsWith("$gy$")) {
            return "a gost-yescrypt hash ('$gy$')";
        }
        if (h.startsWith("$7$")) {
            return "an scrypt hash ('$7$')";
        }
        if (h.startsWith("$argon2")) {
            return "an Argon2 hash";
        }
        if (h.startsWith("$sha1$")) {
            return "a NetBSD SHA-1 crypt hash ('$sha1$')";
        }
        if (h.startsWith("$md5")) {
            return "a Sun MD5 crypt hash ('$md5')";
        }
        if (h.length() == 20 && h.startsWith("_")) {
            return "an extended DES crypt hash";
        }
        if (h.length() == 13 && h.matches("[./0-9A-Za-z]+")) {
            return "a traditional DES crypt hash";
        }
        return NOT_A_HASH;
    }

    private static void monitorUri(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("expects an URI.");
            return;
        }
        if (a.size() > 1) {
            c.error("cannot handle unexpected argument '" + a.get(1) + "'.");
            return;
        }
        if (c.section() == Section.BACKEND) {
            c.warning("ignored because backend '" + c.proxy().name + "' has no frontend capability.");
            return;
        }
        c.proxy().monitorUri = a.get(0);
    }

    private static void monitorFail(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty() || !a.get(0).equals("if") && !a.get(0).equals("unless")) {
            c.error("requires either 'if' or 'unless' followed by a condition.");
            return;
        }
        Condition cond = c.conditionFrom(0);
        if (cond != null) {
            RuleOrder.check(c, RuleOrder.Set.MONITOR, "monitor fail");
            c.proxy().monitorFail.add(cond);
        }
    }
}
