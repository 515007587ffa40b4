package arena

import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec

class LongOperationSpec extends AnyWordSpec with Matchers:
  "checksum" should {
    "equal the contract's reference values" in {
      LongOperation.checksum(1) shouldBe 0.5682303266439076
      LongOperation.checksum(10) shouldBe 10.676268897597582
      LongOperation.checksum(1000) shouldBe 169238.799942987
    }
  }

  "sortedDescending" should {
    "sort the LCG array like a library sort would" in {
      val a = LongOperation.array(500)
      LongOperation.sortedDescending(a.clone()) shouldBe a.sorted(using Ordering.Double.TotalOrdering.reverse)
    }
  }

  "parseN" should {
    "accept decimal digits in 1..200000, leading zeros included" in {
      LongOperation.parseN("1") shouldBe Some(1)
      LongOperation.parseN("0777") shouldBe Some(777)
      LongOperation.parseN("200000") shouldBe Some(200000)
      LongOperation.parseN("0000000000000000000000000000042") shouldBe Some(42)
    }
    "refuse anything else" in {
      for text <- Seq("", "0", "200001", "-1", "+5", "1.5", "1e3", "abc", " 7", "٣", "99999999999999999999999") do
        withClue(text)(LongOperation.parseN(text) shouldBe None)
    }
  }
