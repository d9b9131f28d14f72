package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What a global {@code set-var} or {@code set-var-fmt} line is evaluated on while the configuration is read: no
 * connection, no message, HAProxy's dummy proxy "CFG" as frontend and backend, the process's variables and environment.
 */
final class ConfigTxn implements Txn {
    private final ProcScope scope;
    private final Variables vars;

    ConfigTxn(ProcScope scope) {
        this.scope = scope;
        this.vars = new Variables(scope);
    }

    @Override
    public RequestHead request() {
        return null;
    }

    @Override
    public ResponseHead response() {
        return null;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return null;
    }

    @Override
    public InetSocketAddress frontendAddress() {
        return null;
    }

    @Override
    public boolean tls() {
        return false;
    }

    @Override
    public String sni() {
        return null;
    }

    @Override
    public String frontendName() {
        return "CFG";
    }

    @Override
    public String backendName() {
        return "CFG";
    }

    @Override
    public Map<String, Object> vars() {
        return vars;
    }

    @Override
    public String env(String name) {
        return scope.env(name);
    }
}
