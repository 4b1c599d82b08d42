package io.paduraksa;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import io.paduraksa.policy.AsyncPolicy;
import org.junit.jupiter.api.Test;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.PolicyInput;
import io.paduraksa.policy.RequestPolicy;

/**
 * The layering of docs/architecture.md (its package table) as rules over the compiled classes of core and
 * server: the shape we want, not today's accidents. Every rule holds without exceptions: there is no
 * frozen store of known violations any more (the last package cycles were broken), so any new
 * violation, a package cycle included, fails.
 */
class LayeringTest {
    /** Core and server as compiled (main code only), imported once for all rules. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(new NoTestJars())
            .importPackages("io.paduraksa");

    /** Packages of paduraksa-server (a new server-side top-level package belongs here). */
    private static final String[] SERVER_MODULE = {
            "io.paduraksa.server..", "io.paduraksa.proxy..", "io.paduraksa.ops..",
            "io.paduraksa.http1..", "io.paduraksa.http2..", "io.paduraksa.http3.."};

    /**
     * paduraksa-core (config, snapshot, net, host, route, policy, gate, respond, and any package added
     * to core later): every imported package that is not the server module's.
     */
    private static final DescribedPredicate<JavaClass> CORE = resideInAPackage("io.paduraksa..")
            .and(not(resideInAnyPackage(SERVER_MODULE)))
            .as("paduraksa-core");

    /** The per-protocol glue: feeds the request cycle, writes answers. */
    private static final String[] PROTOCOL_HANDLERS = {
            "io.paduraksa.server.http1..", "io.paduraksa.server.http2..", "io.paduraksa.server.http3.."};

    /**
     * What a protocol handler may know of policies: the interfaces and the decision types. Concrete
     * policies (forward-auth, rate limits, challenges, ...) are the gate's and the request cycle's.
     */
    private static final DescribedPredicate<JavaClass> POLICY_CONTRACT = belongToAnyOf(
            RequestPolicy.class, AsyncPolicy.class, PolicyDecision.class, PolicyInput.class)
            .as("the policy contract (RequestPolicy, AsyncPolicy, PolicyDecision, PolicyInput)");

    /** Core is testable without a server: Netty's buffers and utilities only, no channels, pipelines or codecs. */
    @Test
    void coreUsesNoChannelsOrCodecs() {
        CORE_USES_NO_CHANNELS_OR_CODECS.check(CLASSES);
    }

    private static final ArchRule CORE_USES_NO_CHANNELS_OR_CODECS = noClasses().that(CORE)
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.netty.channel..", "io.netty.handler..", "io.netty.bootstrap..", "io.netty.incubator..")
            .because("paduraksa-core may use netty-buffer and netty-common only (docs/architecture.md)");

    /** Core never reaches up into the server module. */
    @Test
    void coreDoesNotDependOnTheServer() {
        CORE_DOES_NOT_DEPEND_ON_THE_SERVER.check(CLASSES);
    }

    private static final ArchRule CORE_DOES_NOT_DEPEND_ON_THE_SERVER = noClasses().that(CORE)
            .should().dependOnClassesThat().resideInAnyPackage(SERVER_MODULE)
            .because("server depends on core, never back");

    /** A new asynchronous policy needs no edit in a protocol handler: they never name a concrete policy. */
    @Test
    void protocolHandlersNameNoConcretePolicy() {
        PROTOCOL_HANDLERS_NAME_NO_CONCRETE_POLICY.check(CLASSES);
    }

    private static final ArchRule PROTOCOL_HANDLERS_NAME_NO_CONCRETE_POLICY = noClasses().that().resideInAnyPackage(PROTOCOL_HANDLERS)
            .should().dependOnClassesThat(resideInAPackage("io.paduraksa.policy..").and(not(POLICY_CONTRACT)))
            .orShould().dependOnClassesThat().resideInAPackage("io.paduraksa.proxy.auth..")
            .because("the request cycle dispatches outcomes and starts asynchronous policies through their kind's starter");

    /** The upstream side stands above its pools and imports nothing from the client side. */
    @Test
    void proxyImportsNothingFromTheClientSide() {
        PROXY_IMPORTS_NOTHING_FROM_THE_CLIENT_SIDE.check(CLASSES);
    }

    private static final ArchRule PROXY_IMPORTS_NOTHING_FROM_THE_CLIENT_SIDE = noClasses().that().resideInAPackage("io.paduraksa.proxy..")
            .should().dependOnClassesThat().resideInAPackage("io.paduraksa.server..")
            .because("proxy is the upstream side; what both sides share is a codec package (http1, http2) or core");

    /** No package cycles between the top-level packages. */
    @Test
    void noCyclesBetweenTopLevelPackages() {
        NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES.check(CLASSES);
    }

    private static final ArchRule NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES =
            slices().matching("io.paduraksa.(*)..").should().beFreeOfCycles();

    /** No package cycles between any two packages (sub-packages too). */
    @Test
    void noCyclesBetweenPackages() {
        NO_CYCLES_BETWEEN_PACKAGES.check(CLASSES);
    }

    private static final ArchRule NO_CYCLES_BETWEEN_PACKAGES =
            slices().matching("io.paduraksa.(**)").should().beFreeOfCycles();

    /** Leaves out core's test-jar (io.paduraksa.testing): test code, not layering. */
    static final class NoTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar") && !location.contains("/test-classes/");
        }
    }
}
