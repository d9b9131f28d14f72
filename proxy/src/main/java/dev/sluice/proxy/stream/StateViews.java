package dev.sluice.proxy.stream;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.rules.ProxyStates;
import dev.sluice.proxy.stats.Counter;
import java.util.ArrayList;
import java.util.List;

/** The proxy and server states the state fetches read, over a stream's frontend, backend and server. */
final class StateViews implements ProxyStates {
    private final Frontend frontend;
    private final Live stream;

    StateViews(Frontend frontend, Live stream) {
        this.frontend = frontend;
        this.stream = stream;
    }

    @Override
    public BackendState backend(String name) {
        Backend b = frontend.backend(name);
        return b == null ? null : new BackendView(b);
    }

    @Override
    public BackendState currentBackend() {
        // before any switching, a listen section is its own backend (HAProxy's s->be); a frontend alone has none here
        Backend b = stream.backend() != null ? stream.backend() : frontend.ownBackend();
        return b == null ? null : new BackendView(b);
    }

    @Override
    public ServerState currentServer() {
        Server s = stream.server();
        return s == null ? null : new ServerView(s);
    }

    @Override
    public FrontendState frontend(String name) {
        Frontend f = frontend.frontend(name);
        return f == null ? null : new FrontendView(f);
    }

    @Override
    public String frontendDefaultBackend() {
        return frontend.config().defaultBackend();
    }

    @Override
    public boolean stopping() {
        return frontend.isStopped();
    }

    @Override
    public int frontendId() {
        return frontend.id();
    }

    @Override
    public long frontendClientTimeout() {
        return ms(frontend.timeouts().client());
    }

    private static long ms(long t) {
        return t == Timeouts.UNSET ? 0 : t;
    }

    private record FrontendView(Frontend f) implements FrontendState {
        @Override
        public long connections() {
            return f.limit().current();
        }

        @Override
        public long sessionRate() {
            return f.counters().rate(Counter.SESSIONS);
        }

        @Override
        public long requestRate() {
            return f.counters().rate(Counter.REQUESTS);
        }
    }

    private record BackendView(Backend b) implements BackendState {
        @Override
        public long connectionsFree() {
            int active = b.usableActiveServers();
            boolean all = b.config().balance().allBackups();
            Server firstBackup = null;
            for (Server s : b.servers()) {
                if (s.backup() && s.usable()) {
                    firstBackup = s;
                    break;
                }
            }
            long n = 0;
            for (Server s : b.servers()) {
                if (!s.running() || !s.usable() || s.backup() && (active > 0 || s != firstBackup && !all)) {
                    continue;
                }
                if (s.maxconn() == 0) {
                    return -1;
                }
                int max = s.dynamicMaxconn();
                n += Math.max(0, max - s.currentSessions());
            }
            return n;
        }

        @Override
        public int id() {
            return b.id();
        }

        @Override
        public int usableServers() {
            int active = b.usableActiveServers();
            if (active > 0) {
                return active;
            }
            int backups = b.usableServers();
            return backups == 0 ? 0 : b.config().balance().allBackups() ? backups : 1;
        }

        @Override
        public long connections() {
            return b.activeStreams();
        }

        @Override
        public long queued() {
            long n = b.queue().length();
            for (Server s : b.servers()) {
                n += s.queue().length();
            }
            return n;
        }

        @Override
        public long sessionRate() {
            return b.counters().rate(Counter.SESSIONS);
        }

        @Override
        public List<ServerState> servers() {
            List<ServerState> l = new ArrayList<>();
            for (Server s : b.servers()) {
                l.add(new ServerView(s));
            }
            return l;
        }

        @Override
        public ServerState server(String name) {
            for (Server s : b.servers()) {
                if (s.name().equals(name)) {
                    return new ServerView(s);
                }
            }
            return null;
        }

        @Override
        public long serverTimeout() {
            return ms(b.timeouts().server());
        }

        @Override
        public long tunnelTimeout() {
            return ms(b.timeouts().tunnel());
        }
    }

    private record ServerView(Server s) implements ServerState {
        @Override
        public long connectionsFree() {
            return s.maxconn() == 0 ? -1 : Math.max(0, s.dynamicMaxconn() - s.currentSessions());
        }

        @Override
        public int id() {
            return s.id();
        }

        @Override
        public String name() {
            return s.name();
        }

        @Override
        public boolean isUp() {
            return !s.maintenance() && (s.adminState() & Server.FORCED_MAINT) == 0 && (!s.checked() || s.up());
        }

        @Override
        public boolean stopped() {
            return !s.running();
        }

        @Override
        public long connections() {
            return s.currentSessions();
        }

        @Override
        public long queued() {
            return s.queue().length();
        }

        @Override
        public int maxconn() {
            return s.maxconn();
        }

        @Override
        public int maxqueue() {
            return s.maxqueue();
        }

        @Override
        public long sessionRate() {
            return s.counters().rate(Counter.SESSIONS);
        }

        @Override
        public int weight() {
            return (s.eweight() + 15) / 16;
        }

        @Override
        public int initialWeight() {
            return s.initialWeight();
        }

        @Override
        public int userWeight() {
            return s.weight();
        }
    }
}
