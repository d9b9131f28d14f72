package dev.sluice.proxy.check;

/**
 * One run of a multi-step HTTP check ({@link HttpCheckSteps}): its segments in order, each one {@link CheckRun} (a
 * connection, the rendered request, the expect rules on its response), the variable rules between them evaluated in
 * this run's session ({@code check.} variables live as long as the run, as in HAProxy). The first segment that fails
 * ends the check with its status; the last one's outcome is the check's. On the check's event loop only.
 */
final class HttpCheckChain implements CheckAttempt {
    private final HealthCheck check;
    private final HttpCheckSteps steps;
    private final CheckSession session;
    private int index;
    private CheckRun current;
    private boolean done;

    HttpCheckChain(HealthCheck check, HttpCheckSteps steps) {
        this.check = check;
        this.steps = steps;
        CheckPlan plan = check.plan();
        this.session = new CheckSession(check.server().backend().name(), plan.bufsize(), plan.process());
    }

    @Override
    public void start() {
        next();
    }

    private void next() {
        HttpCheckSteps.Segment s = steps.segment(index);
        for (TcpCheckPlan.SetVar v : s.before()) {
            TcpCheckRun.setVar(session, v);
        }
        byte[] request = s.request() == null ? null : s.request().render(session, check.plan().state(check));
        current = new CheckRun(check, this, s, request, session);
        current.start();
    }

    /** A segment ended: a failure (or the last segment) ends the check, else the next segment starts. */
    void segmentDone(CheckRun run, Expectations.Outcome outcome) {
        if (done || run != current) {
            return;
        }
        HttpCheckSteps.Segment s = steps.segment(index);
        boolean passed = outcome.status().result() != CheckStatus.Result.FAILED;
        if (passed) {
            for (TcpCheckPlan.SetVar v : s.after()) {
                TcpCheckRun.setVar(session, v);
            }
        }
        if (!passed || index + 1 >= steps.size()) {
            done = true;
            current = null;
            check.completed(this, outcome);
            return;
        }
        index++;
        next();
    }

    @Override
    public void abandon() {
        done = true;
        if (current != null) {
            current.abandon();
            current = null;
        }
    }
}
