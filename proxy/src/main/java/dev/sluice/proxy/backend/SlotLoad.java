package dev.sluice.proxy.backend;

/** Which of the backend's requests count in its load for the dynamic maxconn ({@link Server#effectiveMaxconn(SlotLoad)}). */
enum SlotLoad {
    /** A new request asks for a slot: the backend's streams, this one included (it was assigned to the backend first). */
    NEW_REQUEST,
    /** A server changed: the backend's streams. */
    QUEUES,
    /**
     * A request gave its slot back: the backend's streams and that one, which left them before its log line and gives its
     * slot back after it (HAProxy serves the queue before the stream leaves beconn).
     */
    RELEASE,
    /**
     * A request was just queued: only those holding a slot, so that the load's rise alone hands out no slot (HAProxy
     * serves its queues with the new limit only when a slot is given back or a server changes).
     */
    ARRIVAL
}
