package dev.sluice.config;

import dev.sluice.config.model.TcpCheck;
import dev.sluice.config.model.TcpCheck.Connect;
import dev.sluice.config.model.TcpCheck.Expect;
import dev.sluice.config.model.TcpCheck.ExpectKind;
import dev.sluice.config.model.TcpCheck.Rule;
import dev.sluice.config.model.TcpCheck.Send;
import dev.sluice.config.model.TcpCheck.SendKind;
import dev.sluice.config.model.TcpCheck.Var;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The protocol check options, each a built-in tcp-check rule set as in HAProxy 2.6.12 (what they send and expect was
 * compared with a running HAProxy): {@code option redis-check}, {@code ssl-hello-chk}, {@code smtpchk [EHLO|HELO
 * <domain>]} (which ends with QUIT since 2.6.7), {@code pgsql-check user <name>}, {@code mysql-check [user <name>
 * [post-41|pre-41]]}, {@code ldap-check}. Their arguments become {@code check.} variables the rules read.
 */
final class ProtocolChecks {
    private ProtocolChecks() {
    }

    /** Where the built-in rules were "written": nowhere in the configuration. */
    private static final SourceRef BUILT_IN = new SourceRef("(built-in)", 0);

    private static final String PAYLOAD_LINE = "%[res.payload(0,0),cut_crlf]";
    private static final String SMTP_TEXT = "%[res.payload(4,0),ltrim(' '),cut_crlf]";
    private static final String SMTP_CODE = "res.payload(0,3)";

    /** SSLv3 ClientHello (RFC 2246 A.3/A.4): record and handshake headers, GMT time, 28 random bytes, 39 cipher suites. */
    private static final String SSLV3_CLIENT_HELLO = "16" + "0300" + "0079" + "01" + "000075" + "0300" + "%[date(),htonl,hex]"
            + "%[str(HAPROXYSSLCHK\nHAPROXYSSLCHK\n),hex]" + "00" + "004E" + ciphers() + "01" + "00";

    private static String ciphers() {
        StringBuilder b = new StringBuilder();
        for (int i = 0x01; i <= 0x1B; i++) {
            b.append(String.format("%04X", i));
        }
        for (int i = 0x2F; i <= 0x3A; i++) {
            b.append(String.format("%04X", i));
        }
        return b.toString();
    }

    /** MySQL >= 4.1 authentication packet for the user, then COM_QUIT. */
    private static final String MYSQL41 = "%[var(check.header),hex]" + "00820000" + "00800001" + "21" + "00".repeat(23)
            + "%[var(check.username),hex]00" + "00" + "010000" + "00" + "01";
    /** MySQL < 4.1 authentication packet, then COM_QUIT. */
    private static final String MYSQL40 = "%[var(check.header),hex]" + "0080" + "000001" + "%[var(check.username),hex]00" + "00" + "010000" + "00"
            + "01";
    private static final String PGSQL_STARTUP = "%[var(check.plen),htonl,hex]" + "00030000" + "7573657200" + "%[var(check.username),hex]00" + "00";

    static void register(KeywordRegistry r) {
        for (TcpCheck.Kind k : TcpCheck.Kind.values()) {
            if (k == TcpCheck.Kind.TCP) {
                continue;
            }
            r.register(new Keyword("option " + k.option(), Section.PROXIES, syntax(k), description(k), c -> option(c, k)));
        }
    }

    private static String syntax(TcpCheck.Kind k) {
        return switch (k) {
            case SMTP -> "option smtpchk [EHLO|HELO <domain>]";
            case PGSQL -> "option pgsql-check user <username>";
            case MYSQL -> "option mysql-check [user <username> [post-41|pre-41]]";
            default -> "option " + k.option();
        };
    }

    private static String description(TcpCheck.Kind k) {
        return switch (k) {
            case REDIS -> "Check Redis servers: PING must be answered +PONG.";
            case SSL_HELLO -> "Check TLS servers with an SSLv3 ClientHello: a handshake or alert record must come back.";
            case SMTP -> "Check SMTP servers: a 2xx greeting, a 2xx answer to HELO (or EHLO), then QUIT.";
            case PGSQL -> "Check PostgreSQL servers with a StartupMessage for the user: an authentication request must come back.";
            case MYSQL -> "Check MySQL servers: the greeting must not be an error; with a user, an authentication packet must be answered OK.";
            case LDAP -> "Check LDAP servers with an anonymous bind: the BindResponse must be a success.";
            case TCP -> "";
        };
    }

    private static void option(KeywordContext c, TcpCheck.Kind k) {
        if (c.negated()) {
            c.lineError("negation/default is not supported for option '" + k.option() + "'.");
            return;
        }
        if (c.section() == Section.FRONTEND) {
            c.lineWarning("'" + k.option() + "' ignored because frontend '" + c.proxy().name + "' has no backend capability.");
        }
        List<String> a = c.args();
        int max = switch (k) {
            case SMTP, PGSQL -> 2;
            case MYSQL -> 3;
            default -> 0;
        };
        if (a.size() > max) {
            c.lineError("'option " + k.option() + "' cannot handle unexpected argument '" + a.get(max) + "'.");
            return;
        }
        List<Rule> rules = new ArrayList<>();
        List<Var> vars = new ArrayList<>();
        switch (k) {
            case REDIS -> {
                rules.add(send(SendKind.STRING, "*1\r\n$4\r\nPING\r\n"));
                rules.add(expect(ExpectKind.STRING, false, "+PONG\r\n", -1, null, "L7STS", null, "Redis server is ok", PAYLOAD_LINE, null));
            }
            case SSL_HELLO -> {
                rules.add(send(SendKind.BINARY_LF, SSLV3_CLIENT_HELLO));
                rules.add(expect(ExpectKind.RBINARY, false, "^1[56]", 5, "L6OK", "L6RSP", "L6TOUT", null, null, null));
            }
            case SMTP -> {
                String cmd = a.size() == 2 && (a.get(0).equals("EHLO") || a.get(0).equals("HELO")) && !a.get(1).isEmpty()
                        ? a.get(0) + " " + a.get(1) : "HELO localhost";
                vars.add(new Var("check.smtp_cmd", cmd, false));
                rules.add(defaultLingerConnect());
                rules.add(expect(ExpectKind.RSTRING, false, "^[0-9]{3}[ \r]", 4, null, "L7RSP", null, null, PAYLOAD_LINE, null));
                rules.add(expect(ExpectKind.RSTRING, false, "^2[0-9]{2}[ \r]", 4, null, "L7STS", null, null, SMTP_TEXT, SMTP_CODE));
                rules.add(send(SendKind.STRING_LF, "%[var(check.smtp_cmd)]\r\n"));
                rules.add(expect(ExpectKind.RSTRING, false, "^(2[0-9]{2}-[^\r]*\r\n)*2[0-9]{2}[ \r]", -1, null, "L7STS", null, SMTP_TEXT, SMTP_TEXT,
                        SMTP_CODE));
                rules.add(send(SendKind.STRING, "QUIT\r\n"));
                rules.add(expect(ExpectKind.RSTRING, false, "^2[0-9]{2}[- \r]", 4, null, "L7STS", null, SMTP_TEXT, SMTP_TEXT, SMTP_CODE));
            }
            case PGSQL -> {
                if (a.size() < 2 || a.get(0).isEmpty() || a.get(1).isEmpty()) {
                    c.lineError("'option pgsql-check' expects 'user <username>' as argument.");
                    return;
                }
                if (!a.get(0).equals("user")) {
                    c.lineError("'option pgsql-check' only supports optional values: 'user'.");
                    return;
                }
                String user = a.get(1);
                vars.add(new Var("check.username", latin1(user), false));
                vars.add(new Var("check.plen", Integer.toString(15 + utf8Length(user)), true));
                rules.add(defaultLingerConnect());
                rules.add(send(SendKind.BINARY_LF, PGSQL_STARTUP));
                rules.add(expect(ExpectKind.RSTRING, true, "^E", 5, null, "L7RSP", null, null, "%[res.payload(6,0)]", null));
                rules.add(expect(ExpectKind.RBINARY, false, "^52000000(08|0A|0C)000000(00|02|03|04|05|06)", 9, null, "L7STS", null,
                        "PostgreSQL server is ok", "PostgreSQL unknown error", null));
            }
            case MYSQL -> {
                String request = null;
                if (!a.isEmpty() && !a.get(0).isEmpty()) {
                    if (!a.get(0).equals("user")) {
                        c.lineError("'option mysql-check' only supports optional values: 'user' (got '" + a.get(0) + "').");
                        return;
                    }
                    if (a.size() < 2 || a.get(1).isEmpty()) {
                        c.lineError("'option mysql-check user' expects <username> as argument.");
                        return;
                    }
                    String user = a.get(1);
                    int len = utf8Length(user);
                    if (a.size() < 3 || a.get(2).isEmpty() || a.get(2).equals("post-41")) {
                        len += 7 + 27;
                        request = MYSQL41;
                    } else if (a.get(2).equals("pre-41")) {
                        len += 7;
                        request = MYSQL40;
                    } else {
                        c.lineError("keyword 'user' only supports 'post-41' and 'pre-41' (got '" + a.get(2) + "').");
                        return;
                    }
                    String header = new String(new char[] {(char) (len & 0xff), (char) ((len >> 8) & 0xff), (char) ((len >> 16) & 0xff), 1});
                    vars.add(new Var("check.header", header, false));
                    vars.add(new Var("check.username", latin1(user), false));
                }
                rules.add(defaultLingerConnect());
                if (request != null) {
                    rules.add(send(SendKind.BINARY_LF, request));
                }
                rules.add(expect(ExpectKind.CUSTOM, false, TcpCheck.MYSQL_GREETING, -1, null, null, null, null, null, null));
                if (request != null) {
                    rules.add(expect(ExpectKind.CUSTOM, false, TcpCheck.MYSQL_OK, -1, null, null, null, null, null, null));
                }
            }
            case LDAP -> {
                rules.add(send(SendKind.BINARY, "300C020101600702010304008000"));
                rules.add(expect(ExpectKind.RBINARY, false, "^30", 14, null, null, null, null, "Not LDAPv3 protocol", null));
                rules.add(expect(ExpectKind.CUSTOM, false, TcpCheck.LDAP_BIND, -1, null, null, null, null, null, null));
            }
            case TCP -> {
            }
        }
        List<Rule> indexed = new ArrayList<>();
        for (Rule r : rules) {
            indexed.add(TcpCheckKeywords.withIndex(r, indexed.size()));
        }
        CheckKeywords.Builder b = c.proxy().checks;
        b.httpchk = false;
        b.external = false;
        b.tcp.protocol(k, List.copyOf(indexed), vars);
    }

    /** The user name as the bytes HAProxy sends (UTF-8 from the configuration file), one char per byte. */
    private static String latin1(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static Connect defaultLingerConnect() {
        return new Connect(BUILT_IN, 0, null, 0, null, null, 0, true, false, false, false, null, null, true);
    }

    private static Send send(SendKind kind, String data) {
        return new Send(BUILT_IN, 0, null, kind, data);
    }

    private static Expect expect(ExpectKind kind, boolean inverse, String pattern, int minRecv, String ok, String error, String timeout,
            String onSuccess, String onError, String statusCode) {
        return new Expect(BUILT_IN, 0, null, kind, inverse, pattern, minRecv, ok, error, timeout, onSuccess, onError, statusCode);
    }
}
