package dev.oxmcp.spring;

import dev.oxmcp.HttpOptions;
import dev.oxmcp.McpPrompt;
import dev.oxmcp.McpResource;
import dev.oxmcp.McpServer;
import dev.oxmcp.McpTool;
import dev.oxmcp.servlet.McpServlet;
import java.lang.reflect.Method;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot auto-configuration: an {@link McpServer} bean (unless the application defines
 * its own), every bean with {@link McpTool}, {@link McpResource} or {@link McpPrompt} methods
 * registered on it (singleton beans: a scoped or prototype bean's methods are the
 * application's to register), and its Streamable HTTP endpoint ({@link McpServlet}) mounted in the
 * servlet web server at {@code oxmcp.path}, configured by the {@code oxmcp.*} properties
 * ({@link OxmcpProperties}). Listed in {@code META-INF/spring/...AutoConfiguration.imports}:
 * the oxmcp jar on the classpath of a Spring Boot web application is all it takes.
 *
 * <pre>{@code
 * @SpringBootApplication
 * public class NotesApplication {
 *     public static void main(String[] args) {
 *         SpringApplication.run(NotesApplication.class, args);
 *     }
 * }
 *
 * @Component
 * class Notes {
 *     @McpTool(description = "Search the notes")
 *     List<Note> search(String query) { ... }
 * }
 * }</pre>
 */
@AutoConfiguration
@ConditionalOnClass(McpServer.class)
@EnableConfigurationProperties(OxmcpProperties.class)
public class OxmcpAutoConfiguration {

    /**
     * @param properties the {@code oxmcp.*} properties
     * @return the application's server (closed with the application context)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public McpServer oxmcpServer(OxmcpProperties properties) {
        return new McpServer(properties.getName(), properties.getVersion(), properties.getInstructions());
    }

    /**
     * @param beans the application's beans
     * @return what registers the annotated methods of every bean once all are made
     */
    @Bean
    public static SmartInitializingSingleton oxmcpAnnotatedBeans(ConfigurableListableBeanFactory beans) {
        return () -> {
            McpServer server = beans.getBeanProvider(McpServer.class).getIfUnique();
            if (server == null) return; // none, or several: the application registers its tools itself
            for (String name : beans.getBeanDefinitionNames()) {
                // Singletons only: a request- or session-scoped bean (and its scoped proxy's
                // target) cannot be made at startup, and a prototype is made per use.
                BeanDefinition definition = beans.getBeanDefinition(name);
                if (definition.isAbstract() || !definition.isSingleton() || ScopedProxyUtils.isScopedTarget(name)
                        || beans.containsBeanDefinition(ScopedProxyUtils.getTargetBeanName(name))) continue;
                Class<?> type = beans.getType(name, false);
                if (type == null) continue;
                Class<?> user = ClassUtils.getUserClass(type);
                if (hasAnnotatedMethods(user)) {
                    registerAs(server, user, beans.getBean(name));
                }
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> void registerAs(McpServer server, Class<T> type, Object bean) {
        server.register(type, (T) bean);
    }

    private static boolean hasAnnotatedMethods(Class<?> type) {
        if (type.getName().startsWith("org.springframework.")) return false;
        for (Method m : type.getDeclaredMethods()) {
            if (m.isAnnotationPresent(McpTool.class) || m.isAnnotationPresent(McpResource.class) || m.isAnnotationPresent(McpPrompt.class)) {
                return true;
            }
        }
        return false;
    }

    /** The endpoint in a servlet web server (Tomcat, Jetty, Undertow). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.http.HttpServlet")
    @ConditionalOnProperty(prefix = "oxmcp", name = "enabled", matchIfMissing = true)
    static class Endpoint {
        /**
         * @param server the server
         * @param properties where and how to serve it
         * @return the servlet, mapped on {@code oxmcp.path}
         */
        @Bean
        @ConditionalOnMissingBean(name = "oxmcpServlet")
        ServletRegistrationBean<McpServlet> oxmcpServlet(McpServer server, OxmcpProperties properties) {
            HttpOptions options = HttpOptions.mounted().path(properties.getPath());
            if (properties.isStateless()) options.stateless();
            if (properties.isJsonResponse()) options.jsonResponse();
            if (!properties.getAllowedHosts().isEmpty()) options.allowedHosts(properties.getAllowedHosts().toArray(String[]::new));
            if (!properties.getAllowedOrigins().isEmpty()) options.allowedOrigins(properties.getAllowedOrigins().toArray(String[]::new));
            ServletRegistrationBean<McpServlet> registration = new ServletRegistrationBean<>(new McpServlet(server, options), properties.getPath());
            registration.setName("oxmcp");
            registration.setAsyncSupported(true);
            return registration;
        }

        /**
         * Ends the endpoint's sessions and SSE streams when the application stops, before the
         * web server's graceful shutdown waits for open requests (a stream stays open until
         * its session ends): in-flight calls get the engine's grace period.
         *
         * @param servlet the endpoint
         * @return the lifecycle that ends it
         */
        @Bean
        SmartLifecycle oxmcpEndpointLifecycle(ServletRegistrationBean<McpServlet> servlet) {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    running = true;
                }

                @Override
                public void stop() {
                    running = false;
                    servlet.getServlet().shutdown();
                }

                @Override
                public boolean isRunning() {
                    return running;
                }

                @Override
                public int getPhase() {
                    // Stopped before the web server's graceful shutdown (a lower phase).
                    return SmartLifecycle.DEFAULT_PHASE;
                }
            };
        }
    }
}
