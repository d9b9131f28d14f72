package dev.sluice.proxy.rules;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The variables one stream's rules see: its own ({@code txn.}, {@code req.}, {@code res.}, {@code sess.}, {@code check.}),
 * and the process's ({@code proc.}), which live in the {@link ProcScope} every stream shares, so that a {@code proc.}
 * variable set by one request is what the next one reads, as in HAProxy. Made when a rule first uses a variable; the
 * stream's part is used on its event loop only.
 */
public final class Variables extends AbstractMap<String, Object> {
    private static final String PROC = "proc.";

    private final Map<String, Object> own = new HashMap<>();
    private final Map<String, Object> process;

    public Variables(ProcScope scope) {
        this.process = scope.vars();
    }

    private Map<String, Object> of(Object name) {
        return name instanceof String s && s.startsWith(PROC) ? process : own;
    }

    @Override
    public Object get(Object name) {
        return of(name).get(name);
    }

    @Override
    public boolean containsKey(Object name) {
        return of(name).containsKey(name);
    }

    @Override
    public Object put(String name, Object value) {
        return of(name).put(name, value);
    }

    @Override
    public Object remove(Object name) {
        return of(name).remove(name);
    }

    /** Every variable, the process's included: a copy (for dumps, never on the request path). */
    @Override
    public Set<Entry<String, Object>> entrySet() {
        Set<Entry<String, Object>> all = new HashSet<>(own.entrySet());
        all.addAll(process.entrySet());
        return all;
    }
}
