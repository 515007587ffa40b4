package arena

import kotlin.test.Test
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals

class SortTest {
    @Test
    fun `checksums equal the contract's reference values`() {
        assertEquals(0.5682303266439076, sortChecksum(1))
        assertEquals(10.676268897597582, sortChecksum(10))
        assertEquals(169238.799942987, sortChecksum(1000))
    }

    @Test
    fun `bubble sort orders descending`() {
        val a = lcgArray(200)
        bubbleSortDescending(a)
        assertContentEquals(lcgArray(200).sortedArrayDescending(), a)
    }

    @Test
    fun `numbers are written in shortest form without exponent`() {
        assertEquals("0.5682303266439076", plainNumber(0.5682303266439076))
        assertEquals("414656434.4748436", plainNumber(414656434.4748436))
        assertEquals("12345678901", plainNumber(12345678901.0))
    }
}
