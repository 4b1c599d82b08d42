package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.paduraksa.policy.PolicyDecision;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A client sending an attack on every request gets one INFO line per policy per period, not one per request. */
class AttacksPolicyLogTest {
    @Test
    void deniedRequestsAreSummarisedAtInfoAndEachLoggedAtDebugOnly() {
        Logger logger = (Logger) LoggerFactory.getLogger(AttacksPolicy.class);
        Level before = logger.getLevel();
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        logger.setLevel(Level.INFO);
        try {
            AttacksPolicy policy = new AttacksPolicy("flooded", 1, 5, true, true, true, List.of("User-Agent", "Referer"),
                    false, List.of(), PolicyDecision.DROP);
            for (int i = 0; i < 500; i++) {
                assertThat(policy.evaluate(AttacksPolicyTest.query("/s", "q", "' or 1=1 -- " + i))).isSameAs(PolicyDecision.DROP);
            }
            assertThat(policy.counters().denied()).isEqualTo(500);
            List<ILoggingEvent> info = events.list.stream().filter(e -> e.getLevel() == Level.INFO).toList();
            assertThat(info).as("INFO lines for 500 denied requests within %d s", AttacksPolicy.SUMMARY_NANOS / 1_000_000_000L)
                    .hasSize(1);
            assertThat(info.get(0).getFormattedMessage()).contains("'flooded'", "1 request(s) reached the threshold 5 (denied)");
            assertThat(events.list).allMatch(e -> e.getLevel() == Level.INFO);
        } finally {
            logger.detachAppender(events);
            logger.setLevel(before);
        }
    }
}
