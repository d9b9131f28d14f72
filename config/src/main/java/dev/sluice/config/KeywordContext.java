package dev.sluice.config;

import dev.sluice.config.model.Condition;
import java.util.List;
import java.util.Map;

/**
 * What a keyword parser sees of one line: its position, the words, the section and the builder of that
 * section, and where to report problems. Parse-time only.
 */
public final class KeywordContext {
    private final SourceRef at;
    private final List<String> words;
    private final int keywordWords;
    private final Section section;
    private final ProxyBuilder proxy;
    private final GlobalBuilder global;
    private final Diagnostics diags;
    private final ConfigParser.Settings settings;
    private final boolean negated;
    private final ConfigPaths paths;

    KeywordContext(SourceRef at, List<String> words, int keywordWords, boolean negated, Section section, ProxyBuilder proxy,
            GlobalBuilder global, Diagnostics diags, ConfigParser.Settings settings, ConfigPaths paths) {
        this.paths = paths;
        this.negated = negated;
        this.at = at;
        this.words = words;
        this.keywordWords = keywordWords;
        this.section = section;
        this.proxy = proxy;
        this.global = global;
        this.diags = diags;
        this.settings = settings;
    }

    /** Whether the line started with {@code no} (as in {@code no option httpclose}). */
    public boolean negated() {
        return negated;
    }

    private Map<String, Map<Integer, byte[]>> httpErrors;
    private Map<Integer, byte[]> currentErrors;

    void httpErrors(Map<String, Map<Integer, byte[]>> all, Map<Integer, byte[]> current) {
        this.httpErrors = all;
        this.currentErrors = current;
    }

    private UserlistKeywords.Builder userlist;
    private CacheKeywords.Builder cache;
    private FcgiAppKeywords.Builder fcgiApp;

    void fcgiApp(FcgiAppKeywords.Builder current) {
        this.fcgiApp = current;
    }

    /** The {@code fcgi-app} section being parsed. */
    FcgiAppKeywords.Builder currentFcgiApp() {
        return fcgiApp;
    }

    void cache(CacheKeywords.Builder current) {
        this.cache = current;
    }

    /** The {@code cache} section being parsed. */
    CacheKeywords.Builder currentCache() {
        return cache;
    }

    private ResolversKeywords.Builder resolvers;
    private RingKeywords.ForwardBuilder logForward;

    void logForward(RingKeywords.ForwardBuilder current) {
        this.logForward = current;
    }

    /** The {@code log-forward} section being parsed. */
    RingKeywords.ForwardBuilder currentLogForward() {
        return logForward;
    }

    void resolvers(ResolversKeywords.Builder current) {
        this.resolvers = current;
    }

    /** The {@code resolvers} section being parsed. */
    ResolversKeywords.Builder currentResolvers() {
        return resolvers;
    }

    Diagnostics diagnostics() {
        return diags;
    }

    void userlist(UserlistKeywords.Builder current) {
        this.userlist = current;
    }

    /** The {@code userlist} section being parsed. */
    UserlistKeywords.Builder currentUserlist() {
        return userlist;
    }

    /** The {@code http-errors} sections parsed so far, by name. */
    public Map<String, Map<Integer, byte[]>> httpErrorSections() {
        return httpErrors;
    }

    /** The pages of the {@code http-errors} section being parsed. */
    public Map<Integer, byte[]> currentErrorSection() {
        return currentErrors;
    }

    public SourceRef at() {
        return at;
    }

    /** The keyword as written (one or two words). */
    public String keyword() {
        return String.join(" ", words.subList(0, keywordWords));
    }

    /** Every word of the line, the keyword included. */
    public List<String> words() {
        return words;
    }

    /** The words after the keyword. */
    public List<String> args() {
        return words.subList(keywordWords, words.size());
    }

    public Section section() {
        return section;
    }

    /** The builder of the current proxy or defaults section; null in {@code global}. */
    public ProxyBuilder proxy() {
        return proxy;
    }

    public GlobalBuilder global() {
        return global;
    }

    public ConfigParser.Settings settings() {
        return settings;
    }

    /** Where relative paths start from ({@code default-path}). */
    ConfigPaths paths() {
        return paths;
    }

    /** A file this line names, as the line opens it: relative to the {@code default-path} directory in force. */
    public String path(String file) {
        return paths.resolve(file);
    }

    public void error(String message) {
        diags.error(at, "'" + keyword() + "' : " + message);
    }

    /** An error about the line as a whole, without the keyword in front (HAProxy's wording for some). */
    public void lineError(String message) {
        diags.error(at, message);
    }

    /** A warning about the line as a whole, without the keyword in front (HAProxy's wording for some). */
    public void lineWarning(String message) {
        diags.warning(at, message);
    }

    public void warning(String message) {
        diags.warning(at, "'" + keyword() + "' : " + message);
    }

    /**
     * A notice: what Sluice does differently where HAProxy says nothing; shown like a warning but not one (it does not
     * trip {@code zero-warning}, nor "Warnings were found").
     */
    public void notice(String message) {
        diags.notice(at, "'" + keyword() + "' : " + message);
    }

    /** Reports an error unless the keyword has between {@code min} and {@code max} arguments. */
    public boolean expectArgs(int min, int max, String syntax) {
        int n = args().size();
        if (n < min) {
            error("missing argument; expected: " + syntax);
            return false;
        }
        if (n > max) {
            error("unexpected argument '" + args().get(max) + "'; expected: " + syntax);
            return false;
        }
        return true;
    }

    /**
     * HAProxy's check of a keyword that takes at most {@code max} arguments: an error "'kw' cannot handle unexpected
     * argument 'x'." (its wording) and false when there are more.
     */
    public boolean atMost(int max) {
        if (args().size() > max) {
            lineError("'" + keyword() + "' cannot handle unexpected argument '" + args().get(max) + "'.");
            return false;
        }
        return true;
    }

    /** Parses an integer argument, reporting an error and returning {@code fallback} on failure. */
    public int intArg(String value, String what, int min, int max, int fallback) {
        try {
            return Units.parseInt(value, what, min, max);
        } catch (IllegalArgumentException e) {
            error(e.getMessage());
            return fallback;
        }
    }

    /** Parses a time argument into milliseconds, reporting an error and returning -1 on failure. */
    public long timeArg(String value) {
        try {
            return Units.parseTimeMillis(value);
        } catch (IllegalArgumentException e) {
            error(e.getMessage());
            return -1;
        }
    }

    /**
     * Parses {@code if|unless <condition>} starting at word index {@code from} of {@link #args()} up to the
     * end of the line. Returns null when there is no condition there; reports an error (and returns null)
     * when the words there are not a condition.
     */
    public Condition conditionFrom(int from) {
        List<String> a = args();
        if (from >= a.size()) {
            return null;
        }
        String first = a.get(from);
        if (!first.equals("if") && !first.equals("unless")) {
            error("unexpected argument '" + first + "' (expected 'if' or 'unless' followed by a condition)");
            return null;
        }
        try {
            return ConditionParser.parse(first.equals("unless"), a.subList(from + 1, a.size()));
        } catch (IllegalArgumentException e) {
            diags.error(at, "error detected while parsing a '" + keyword() + "' condition : " + e.getMessage());
            return null;
        }
    }

    /** Index of the first {@code if}/{@code unless} in {@link #args()} at or after {@code from}, or the size. */
    public int conditionStart(int from) {
        List<String> a = args();
        for (int i = from; i < a.size(); i++) {
            if (a.get(i).equals("if") || a.get(i).equals("unless")) {
                return i;
            }
        }
        return a.size();
    }
}
