package dev.sluice.proxy.check;

/** One health check in progress ({@link CheckRun}, {@link TcpCheckRun}), which reports to its {@link HealthCheck}. On its loop. */
interface CheckAttempt {
    void start();

    /** The check was stopped: close without a result. */
    void abandon();
}
