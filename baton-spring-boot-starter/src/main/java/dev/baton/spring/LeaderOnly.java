package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gates work on leadership of {@code baton.leader.path}: one instance of the application runs it.
 *
 * <ul>
 *   <li>On a method (typically a {@code @Scheduled} one): the call runs only while this instance leads and is
 *       skipped otherwise; a skipped call returns {@code null}, {@code 0} or {@code false}.</li>
 *   <li>On a class that implements {@link org.springframework.context.SmartLifecycle}: the bean is not started
 *       with the context; it is started when leadership is granted and stopped when it is revoked (a suspended
 *       connection counts as revoked).</li>
 * </ul>
 *
 * <p>The bean is proxied (by subclassing), so neither the class nor the method may be final, and a call from
 * inside the bean itself ({@code this.method()}) is not gated. Using the annotation without
 * {@code baton.leader.path} fails the start-up rather than running the work everywhere.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface LeaderOnly {
}
