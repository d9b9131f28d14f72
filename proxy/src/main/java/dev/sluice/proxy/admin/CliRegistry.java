package dev.sluice.proxy.admin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every admin command, registered by the subsystem that owns it: the CLI's own session commands here
 * ({@link SessionCommands}), frontends and {@code show info/stat} by the runtime, servers and backends by
 * the backend package. A subsystem added later (pools, stick tables, QUIC) registers its commands the same
 * way, from where the runtime builds it: {@code registry.register(new CliCommand(List.of("show", "pools"),
 * Level.USER, "show pools", "report information about the memory pools usage", handler))}. Lookup follows
 * HAProxy: the first registered command whose words start the line. Thread-safe; registration normally
 * ends before the sockets open.
 */
public final class CliRegistry {
    /** HAProxy's CLI_PREFIX_KW_NB: words of a command name that take part in matching. */
    private static final int PREFIX_WORDS = 5;
    /** HAProxy's CLI_MAX_MATCHES: suggestions for an unknown command. */
    private static final int MAX_MATCHES = 5;

    private final List<CliCommand> commands = new CopyOnWriteArrayList<>();

    /** A registry holding the session commands (help, prompt, quit, show cli level, operator, user). */
    public CliRegistry() {
        SessionCommands.register(this);
    }

    public void register(CliCommand c) {
        if (c.words().isEmpty() || c.words().size() > PREFIX_WORDS) {
            throw new IllegalArgumentException("a command has 1 to " + PREFIX_WORDS + " words: " + c.words());
        }
        for (CliCommand o : commands) {
            if (o.words().equals(c.words())) {
                throw new IllegalStateException("command registered twice: " + String.join(" ", c.words()));
            }
        }
        commands.add(c);
    }

    public List<CliCommand> commands() {
        return List.copyOf(commands);
    }

    /** The command a line runs, or null. */
    public CliCommand find(List<String> args) {
        for (CliCommand c : commands) {
            List<String> w = c.words();
            if (w.size() <= args.size() && w.equals(args.subList(0, w.size()))) {
                return c;
            }
        }
        return null;
    }

    /**
     * HAProxy's usage message: for {@code help [words]} ({@code help} true, the "help" word already in
     * {@code args}) or for a line that names no command. Commands whose first words match are listed; when
     * the next word matches none, the closest commands by word fingerprint are proposed instead.
     */
    String usage(List<String> args, boolean help) {
        List<String> a = help && !args.isEmpty() ? args.subList(1, args.size()) : args;
        int length = 0;
        for (CliCommand c : commands) {
            // hidden commands (help, prompt, quit) count here as in HAProxy: "help quit" lists nothing
            length = Math.max(length, matching(c, a));
        }
        StringBuilder out = new StringBuilder();
        if (help) {
            out.append("The following commands are valid at this level:\n");
        } else if (length == 0 && (a.isEmpty() || a.get(0).isEmpty())) {
            out.append("Unknown command. Please enter one of the following commands only:\n");
        } else {
            out.append("Unknown command, but maybe one of the following ones is a better match:\n");
        }
        List<CliCommand> entries = new ArrayList<>();
        if (length < a.size() && !a.get(length).isEmpty()) {
            List<CliCommand> best = new ArrayList<>();
            List<Integer> dists = new ArrayList<>();
            for (CliCommand c : commands) {
                if (c.syntax() == null || !prefixMatches(c, a, length)) {
                    continue;
                }
                int[] words = fingerprint(a.subList(length, Math.min(a.size(), PREFIX_WORDS)));
                int[] kw = fingerprint(c.words().subList(length, c.words().size()));
                int total = 0;
                for (int i = length; i < Math.min(a.size(), PREFIX_WORDS); i++) {
                    total += a.get(i).length();
                }
                for (int i = length; i < c.words().size(); i++) {
                    total += c.words().get(i).length();
                }
                int dist = distance(words, kw);
                if (dist < 5 * total / 2 && (best.size() < MAX_MATCHES || dist < dists.get(MAX_MATCHES - 1))) {
                    int at = best.size();
                    while (at > 0 && dists.get(at - 1) > dist) {
                        at--;
                    }
                    best.add(at, c);
                    dists.add(at, dist);
                    if (best.size() > MAX_MATCHES) {
                        best.removeLast();
                        dists.removeLast();
                    }
                }
            }
            for (int i = 0; i < best.size(); i++) {
                if (dists.get(i) > 5 * dists.get(0) / 2) {
                    break;
                }
                entries.add(best.get(i));
            }
        }
        if (entries.isEmpty()) {
            for (CliCommand c : commands) {
                if (c.syntax() != null && prefixMatches(c, a, length)) {
                    entries.add(c);
                }
            }
        }
        entries.sort(Comparator.comparing(CliCommand::usage));
        for (CliCommand c : entries) {
            out.append("  ").append(c.usage()).append('\n');
        }
        out.append("  help [<command>]                        : list matching or all commands\n");
        out.append("  prompt                                  : toggle interactive mode with prompt\n");
        out.append("  quit                                    : disconnect\n");
        return out.toString();
    }

    /** How many leading words of {@code args} equal the command's. */
    private static int matching(CliCommand c, List<String> args) {
        int n = 0;
        while (n < c.words().size() && n < args.size() && n < PREFIX_WORDS && c.words().get(n).equals(args.get(n))) {
            n++;
        }
        return n;
    }

    private static boolean prefixMatches(CliCommand c, List<String> args, int length) {
        for (int i = 0; i < length; i++) {
            if (i >= c.words().size() || i >= args.size() || !c.words().get(i).equals(args.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * HAProxy's word fingerprint: counts of transitions between character classes (26 letters, digit,
     * other, word begin, word end) over all the words.
     */
    static int[] fingerprint(List<String> words) {
        int[] fp = new int[1024];
        for (String w : words) {
            int from = 28;
            for (int i = 0; i < w.length(); i++) {
                char c = Character.toLowerCase(w.charAt(i));
                int to = c >= 'a' && c <= 'z' ? c - 'a' : c >= '0' && c <= '9' ? 26 : 27;
                fp[32 * from + to]++;
                from = to;
            }
            fp[32 * from + 29]++;
        }
        return fp;
    }

    static int distance(int[] a, int[] b) {
        int d = 0;
        for (int i = 0; i < a.length; i++) {
            d += Math.abs(a[i] - b[i]);
        }
        return d;
    }
}
