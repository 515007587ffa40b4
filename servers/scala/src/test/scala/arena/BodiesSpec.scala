package arena

import org.apache.pekko.util.ByteString
import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec
import spray.json.{JsNumber, JsObject}

class BodiesSpec extends AnyWordSpec with Matchers:
  private def parse(text: String) = Bodies.parseObject(ByteString(text))
  private def password(text: String) = parse(text).flatMap(Bodies.password)

  "parseObject" should {
    "accept any JSON object" in {
      parse("""{"a": [1, 2.5, null, true], "b": {"c": "ü"}}""").isRight shouldBe true
      parse("{}") shouldBe Right(JsObject.empty)
      parse("{\"n\": " + "9" * 1000 + "}").map(_.fields("n")) shouldBe Right(JsNumber(BigDecimal("9" * 1000)))
    }
    "refuse JSON that is not an object" in {
      for text <- Seq("[1, 2]", "\"text\"", "42", "null", "true") do
        withClue(text)(parse(text) shouldBe Left("body is not a JSON object"))
    }
    "refuse text that is not JSON" in {
      for text <- Seq("", "{bad json", """{"a": 1""", "{} {}", "{'a': 1}") do
        withClue(text)(parse(text) shouldBe Left("body is not valid JSON"))
    }
    "refuse deep nesting rather than overflow the stack" in {
      parse("""{"a":""" * 10000 + "1" + "}" * 10000) shouldBe Left("body is not valid JSON")
    }
    "refuse bytes that are not UTF-8" in {
      Bodies.parseObject(ByteString(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d)) shouldBe Left("body is not UTF-8")
    }
  }

  "password" should {
    "take the password string, up to 72 UTF-8 bytes" in {
      password("""{"password": "correct horse"}""") shouldBe Right(Password("correct horse"))
      password(s"""{"password": "${"€" * 24}"}""") shouldBe Right(Password("€" * 24))
    }
    "refuse a missing, non-string or too long password" in {
      for text <- Seq("{}", """{"password": 12345}""", """{"password": null}""", """{"Password": "x"}""") do
        withClue(text)(password(text) shouldBe Left("body needs a \"password\" string"))
      password(s"""{"password": "${"€" * 25}"}""") shouldBe Left("password longer than 72 bytes")
      password(s"""{"password": "${"a" * 73}"}""") shouldBe Left("password longer than 72 bytes")
    }
  }
