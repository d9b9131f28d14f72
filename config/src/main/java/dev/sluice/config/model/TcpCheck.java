package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A backend's tcp-check rule set, as HAProxy 2.6 runs it: the {@code tcp-check} rules of {@code option tcp-check}
 * ({@link Kind#TCP}), or the built-in set of one of the protocol options ({@code option redis-check}, {@code smtpchk},
 * {@code pgsql-check}, {@code mysql-check}, {@code ldap-check}, {@code ssl-hello-chk}), written with the same rules.
 * {@code rules} are in configuration order, comments included; {@code vars} are the {@code check.} variables set
 * before the first rule (the protocol options pass their arguments that way). Each rule keeps its {@code index} in
 * its rule set (HAProxy's steps are index + 1) and where it was written.
 */
public record TcpCheck(Kind kind, List<Rule> rules, List<Var> vars) {

    public TcpCheck {
        rules = List.copyOf(rules);
        vars = List.copyOf(vars);
    }

    /** Which option made the rule set: only {@link #TCP} describes failures with step numbers and "(tcp-check)". */
    public enum Kind {
        TCP("tcp-check"), REDIS("redis-check"), SSL_HELLO("ssl-hello-chk"), SMTP("smtpchk"), PGSQL("pgsql-check"), MYSQL("mysql-check"),
        LDAP("ldap-check");

        private final String option;

        Kind(String option) {
            this.option = option;
        }

        /** The option's name ({@code option <name>}). */
        public String option() {
            return option;
        }
    }

    /** One rule; {@code comment} is its own {@code comment} argument (null: none). */
    public sealed interface Rule permits Connect, Send, Expect, Comment, SetVar {
        SourceRef where();

        int index();

        String comment();
    }

    /**
     * {@code tcp-check connect}: {@code port} 0 when unset ({@code portExpr} a sample expression instead, or null);
     * {@code addr} an address without its port (null: the check's or the server's), {@code addrPort} its port (0 when
     * none); {@code useDefault} is {@code default} (the server's check settings); {@code alpn} the protocol names as
     * written (comma-separated, null: none).
     */
    public record Connect(SourceRef where, int index, String comment, int port, String portExpr, String addr, int addrPort, boolean useDefault,
            boolean sendProxy, boolean viaSocks4, boolean ssl, String sni, String alpn, boolean linger) implements Rule {
    }

    /** How a {@code send} rule's argument is read. */
    public enum SendKind {
        /** {@code send}: the text. */
        STRING,
        /** {@code send-binary}: hex digits. */
        BINARY,
        /** {@code send-lf}: a log-format string. */
        STRING_LF,
        /** {@code send-binary-lf}: a log-format string rendering hex digits. */
        BINARY_LF
    }

    public record Send(SourceRef where, int index, String comment, SendKind kind, String data) implements Rule {
    }

    /** What an {@code expect} rule matches. */
    public enum ExpectKind {
        STRING, RSTRING, BINARY, RBINARY, STRING_LF, BINARY_LF,
        /** A built-in parser ({@link Expect#pattern} names it: {@link #MYSQL_GREETING} ...); none (null) does nothing. */
        CUSTOM
    }

    /** The built-in expect parsers of the protocol options. */
    public static final String MYSQL_GREETING = "mysql-greeting";
    public static final String MYSQL_OK = "mysql-ok";
    public static final String LDAP_BIND = "ldap-bind-response";

    /**
     * {@code tcp-check expect}: {@code pattern} is the text, the regex, the hex digits or the log-format string (per
     * {@code kind}); {@code minRecv} -1 when unset; statuses are check status names (L7OK ...), null when unset;
     * {@code onSuccess}/{@code onError} log-format strings and {@code statusCode} a sample expression, null when unset.
     */
    public record Expect(SourceRef where, int index, String comment, ExpectKind kind, boolean inverse, String pattern, int minRecv,
            String okStatus, String errorStatus, String timeoutStatus, String onSuccess, String onError, String statusCode) implements Rule {
    }

    /** {@code tcp-check comment <text>}: names the rules that follow it (of the same action). */
    public record Comment(SourceRef where, int index, String comment) implements Rule {
    }

    /**
     * {@code tcp-check set-var(<name>) <expr>}, {@code set-var-fmt(<name>) <fmt>} ({@code format}), or
     * {@code unset-var(<name>)} ({@code value} null).
     */
    public record SetVar(SourceRef where, int index, String name, String value, boolean format) implements Rule {
        @Override
        public String comment() {
            return null;
        }
    }

    /** A variable set before the rules run: text (ISO-8859-1 bytes as chars) or, when {@code integer}, a number. */
    public record Var(String name, String value, boolean integer) {
    }
}
