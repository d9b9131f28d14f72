package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * An {@code fcgi-app} section (HAProxy 2.6's FastCGI application, doc section 10): the document root on the remote
 * host ({@code docroot}), the script appended to a path ending in '/' ({@code index}, null: none), the regex splitting
 * the decoded path into the script name and the path info ({@code pathInfo}, null: none), its rules in declaration
 * order ({@code set-param}, {@code pass-header}, after the implicit ones every application starts with), its private
 * ACLs, where the application's STDERR goes ({@code log-stderr}: {@code logStderrGlobal} for the global section's
 * targets, {@code logStderr} for its own; nowhere by default) and its connection options ({@code option keep-conn},
 * {@code mpxs-conns}, {@code max-reqs}, {@code get-values}).
 */
public record FcgiApp(SourceRef where, String name, String docroot, String index, String pathInfo, List<Rule> rules, List<Acl> acls,
        boolean logStderrGlobal, List<LogTarget> logStderr, boolean keepConn, boolean mpxsConns, int maxReqs, boolean getValues) {

    public FcgiApp {
        rules = List.copyOf(rules);
        acls = List.copyOf(acls);
        logStderr = List.copyOf(logStderr);
    }

    /**
     * Whether a connection to the application may carry more than one request at once, as HAProxy 2.6's FastCGI
     * multiplexer lets it: {@code max-reqs} above 1 (which needs {@code mpxs-conns} or {@code get-values}), or {@code
     * get-values}, whose answer may raise the limit.
     */
    public boolean multiplexes() {
        return maxReqs > 1 || getValues;
    }

    /**
     * A {@code set-param <name> <fmt>} ({@code param}: {@code value} is the log-format; {@code name} is the parameter's
     * name as HAProxy keeps it: lower case, every character but letters and digits turned into '_') or a
     * {@code pass-header <name>} / the implicit hiding of a header ({@code pass} says which; {@code name} in lower case),
     * with its condition (null: always); {@code given} is the name as written, for messages.
     */
    public record Rule(SourceRef where, Kind kind, String name, String value, Condition condition, String given) {
    }

    public enum Kind {
        SET_PARAM, PASS_HEADER, HIDE_HEADER
    }
}
