package dev.baton.state;

/** Only {@link ConnectionState#LOST} is an error: recipes ride out a suspension while the session may live. */
public final class SessionConnectionStateErrorPolicy implements ConnectionStateErrorPolicy {

    /** Creates the policy; {@link ConnectionStateErrorPolicy#SESSION} is a shared instance. */
    public SessionConnectionStateErrorPolicy() {
    }

    @Override
    public boolean isErrorState(ConnectionState state) {
        return state == ConnectionState.LOST;
    }

    @Override
    public String toString() {
        return "SESSION";
    }
}
