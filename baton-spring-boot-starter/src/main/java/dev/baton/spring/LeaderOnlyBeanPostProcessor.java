package dev.baton.spring;

import java.lang.reflect.Method;
import java.util.Objects;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcher;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Proxies beans that use {@link LeaderOnly}: gated methods run only while this instance leads, and gated
 * lifecycle beans neither start with the context nor start at all unless leading ({@link BatonLeadership}
 * starts them on grant). Runs before {@code @Scheduled} processing, so scheduled calls go through the proxy.
 */
final class LeaderOnlyBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
    /** Set by Spring (this is {@code BeanFactoryAware}) before any bean is post-processed. */
    private transient @Nullable ListableBeanFactory listableBeanFactory;
    /** Looked up on first use: the leadership bean is made after this post-processor. */
    private transient volatile @Nullable BatonLeadership leadership;

    LeaderOnlyBeanPostProcessor() {
        setProxyTargetClass(true); // @Scheduled methods live on classes, not interfaces
        setBeforeExistingAdvisors(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 1);
        this.advisor = new DefaultPointcutAdvisor(new GatedPointcut(), (MethodInterceptor) this::invoke);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.listableBeanFactory = (ListableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        ListableBeanFactory factory = listableBeanFactory;
        if (isEligible(bean, beanName) && factory != null
                && factory.getBeanNamesForType(BatonLeadership.class, true, false).length == 0) {
            throw new BeanCreationException(beanName, "@LeaderOnly needs leader-gating: set baton.leader.path "
                    + "(and baton.connect-string), or remove @LeaderOnly from " + AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }

    private @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object target = Objects.requireNonNull(invocation.getThis(), "a bean proxied here always has a target");
        if (isLifecycleGate(method, AopUtils.getTargetClass(target))) {
            if (method.getName().equals("isAutoStartup")) {
                return false; // started on grant, not with the context
            }
            return leadership().isLeader() ? invocation.proceed() : null;
        }
        if (leadership().isLeader()) {
            return invocation.proceed();
        }
        return skipped(method.getReturnType());
    }

    private BatonLeadership leadership() {
        BatonLeadership current = leadership;
        if (current == null) {
            current = Objects.requireNonNull(listableBeanFactory, "set before any bean is proxied")
                    .getBean(BatonLeadership.class);
            leadership = current;
        }
        return current;
    }

    private static @Nullable Object skipped(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0.0;
        }
        if (type == float.class) {
            return 0.0f;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        return 0;
    }

    /** {@code start()} or {@code isAutoStartup()} of a {@link SmartLifecycle} class carrying {@link LeaderOnly}. */
    static boolean isLifecycleGate(Method method, Class<?> targetClass) {
        return method.getParameterCount() == 0
                && (method.getName().equals("start") || method.getName().equals("isAutoStartup"))
                && SmartLifecycle.class.isAssignableFrom(targetClass)
                && AnnotatedElementUtils.hasAnnotation(targetClass, LeaderOnly.class);
    }

    /** Methods carrying {@link LeaderOnly}, and the start of gated lifecycle beans. */
    private static final class GatedPointcut extends StaticMethodMatcher implements Pointcut {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            if (isLifecycleGate(method, targetClass)) {
                return true;
            }
            Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
            return AnnotatedElementUtils.hasAnnotation(specific, LeaderOnly.class);
        }

        @Override
        public ClassFilter getClassFilter() {
            return ClassFilter.TRUE;
        }

        @Override
        public MethodMatcher getMethodMatcher() {
            return this;
        }
    }
}
