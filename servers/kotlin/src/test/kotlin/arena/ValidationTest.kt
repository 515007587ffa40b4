package arena

import io.ktor.http.HttpStatusCode
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class ValidationTest {
    @Test
    fun `n is decimal digits in range, leading zeros allowed`() {
        assertEquals(777, parseSortN("0777"))
        assertEquals(1, parseSortN("1"))
        assertEquals(MAX_SORT_N, parseSortN("200000"))
        for (text in listOf("", "0", "200001", "-1", "+5", "1.5", "1e3", " 5", "abc", "99999999999999999999999")) {
            val error = assertFailsWith<ApiError>(text) { parseSortN(text) }
            assertEquals(HttpStatusCode.BadRequest, error.status)
        }
    }

    @Test
    fun `only strict JSON parses`() {
        assertTrue(parseJson("""{"a": [1, 2.5e3, null, true, "ü"]}""").isObject)
        assertTrue(parseJson("[1]").isArray)
        for (text in listOf("", " ", "{", """{"a": abc}""", """{"a": NaN}""", "{'a': 1}", """{"a": 1} x""", "[1,]")) {
            assertFailsWith<ApiError>(text) { parseJson(text) }
        }
    }
}
