package dev.baton.micrometer;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicBoolean;

/** The meters of one lock path, shared by every lock registered for it; {@code closed} is the binding's. */
record LockMeters(Timer acquired, Timer timedOut, Timer failed, LongTaskTimer held, AtomicBoolean closed) {
}
