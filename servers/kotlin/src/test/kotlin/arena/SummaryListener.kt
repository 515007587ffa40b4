package arena

import org.junit.platform.engine.TestExecutionResult
import org.junit.platform.launcher.TestExecutionListener
import org.junit.platform.launcher.TestIdentifier
import org.junit.platform.launcher.TestPlan

/**
 * Prints "N passed, N failed, N skipped" once the tests have run: `mvn -q` hides Surefire's own
 * count, and `arena test` shows this line as the result.
 */
class SummaryListener : TestExecutionListener {
    private var passed = 0
    private var failed = 0
    private var skipped = 0

    override fun executionFinished(testIdentifier: TestIdentifier, testExecutionResult: TestExecutionResult) {
        if (!testIdentifier.isTest) return
        if (testExecutionResult.status == TestExecutionResult.Status.SUCCESSFUL) passed++ else failed++
    }

    override fun executionSkipped(testIdentifier: TestIdentifier, reason: String) {
        if (testIdentifier.isTest) skipped++
    }

    override fun testPlanExecutionFinished(testPlan: TestPlan) =
        println("$passed passed, $failed failed, $skipped skipped")
}
