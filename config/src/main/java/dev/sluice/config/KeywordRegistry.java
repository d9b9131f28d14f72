package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Every configuration keyword Sluice accepts, each registered once. Drives parsing (lookup by the first
 * one or two words of a line), "did you mean" suggestions and the generated configuration reference.
 * Built once at start-up, then read-only.
 */
public final class KeywordRegistry {
    private final Map<String, Keyword> byName = new LinkedHashMap<>();
    /** First words of two-word keyword families ({@code timeout}, {@code option}, {@code http-request}, ...). */
    private final Map<String, String> families = new LinkedHashMap<>();

    /**
     * Every keyword class, the one place that names them all. The order is observable: a family's members are listed
     * in registration order in messages ("'option' expects a option (one of: forwardfor, ...)"), so the classes that
     * add members to a family keep their place (http-request return, for one, comes after the other actions).
     */
    private static final List<Consumer<KeywordRegistry>> KEYWORD_SETS = List.of(
            ProcessKeywords::register,
            EnvironmentKeywords::register,
            TuneKeywords::register,
            CpuKeywords::register,
            ProxyKeywords::register,
            BindKeywords::register,
            ServerKeywords::register,
            DispatchKeywords::register,
            TlsKeywords::register,
            BalanceKeywords::register,
            LogKeywords::register,
            RingKeywords::register,
            MailersKeywords::register,
            ProgramKeywords::register,
            StatsKeywords::register,
            ErrorKeywords::register,
            RuleKeywords::register,
            TcpRuleKeywords::register,
            UserlistKeywords::register,
            RetryKeywords::register,
            CompressionKeywords::register,
            CacheKeywords::register,
            FcgiAppKeywords::register,
            ResolversKeywords::register,
            PeersKeywords::register,
            QuicKeywords::register,
            CheckKeywords::register,
            TcpCheckKeywords::register,
            ExternalCheckKeywords::register,
            ProtocolChecks::register,
            PersistenceKeywords::register,
            ServerStateKeywords::register,
            HttpReturnKeywords::register);

    /** The registry with every keyword Sluice implements. */
    public static KeywordRegistry standard() {
        KeywordRegistry r = new KeywordRegistry();
        for (Consumer<KeywordRegistry> set : KEYWORD_SETS) {
            set.accept(r);
        }
        return r;
    }

    public void register(Keyword k) {
        if (byName.putIfAbsent(k.name(), k) != null) {
            throw new IllegalStateException("keyword registered twice: " + k.name());
        }
    }

    /** Declares a family: its keywords are {@code <first> <second>}, an unknown second word is an error. */
    public void family(String first, String what) {
        families.put(first, what);
    }

    public boolean isFamily(String first) {
        return families.containsKey(first);
    }

    /** What a family's second word names ("option", "action", "timeout"), for messages. */
    public String familyMember(String first) {
        return families.get(first);
    }

    /** The keyword that a line starting with these words uses, or null. */
    public Keyword lookup(String first, String second) {
        if (families.containsKey(first)) {
            return second == null ? null : byName.get(first + " " + stripParens(second));
        }
        return byName.get(first);
    }

    /** Second words registered for a family and allowed in a section. */
    public List<String> familyMembers(String first, Section section) {
        List<String> out = new ArrayList<>();
        for (Keyword k : byName.values()) {
            if (k.name().startsWith(first + " ") && (section == null || k.sections().contains(section))) {
                out.add(k.name().substring(first.length() + 1));
            }
        }
        return out;
    }

    /** Keyword names (first words, families included) allowed in a section. */
    public Collection<String> namesIn(Section section) {
        TreeSet<String> out = new TreeSet<>();
        for (Keyword k : byName.values()) {
            if (k.sections().contains(section)) {
                int sp = k.name().indexOf(' ');
                out.add(sp < 0 ? k.name() : k.name().substring(0, sp));
            }
        }
        return out;
    }

    public Collection<Keyword> all() {
        return Collections.unmodifiableCollection(byName.values());
    }

    static String stripParens(String w) {
        int p = w.indexOf('(');
        return p < 0 ? w : w.substring(0, p);
    }
}
