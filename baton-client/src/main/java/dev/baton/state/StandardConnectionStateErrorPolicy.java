package dev.baton.state;

/** The default policy: {@link ConnectionState#SUSPENDED} and {@link ConnectionState#LOST} are errors. */
public final class StandardConnectionStateErrorPolicy implements ConnectionStateErrorPolicy {

    /** Creates the policy; {@link ConnectionStateErrorPolicy#STANDARD} is a shared instance. */
    public StandardConnectionStateErrorPolicy() {
    }

    @Override
    public boolean isErrorState(ConnectionState state) {
        return state == ConnectionState.SUSPENDED || state == ConnectionState.LOST;
    }

    @Override
    public String toString() {
        return "STANDARD";
    }
}
