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

  "record" should {
    def record(text: String) = parse(text).flatMap(Bodies.record)

    "take name and value, ignoring other fields" in {
      record("""{"name": "a.B-9_z", "value": "x", "other": [1]}""") shouldBe Right(Record("a.B-9_z", "x"))
      record("""{"name": "empty", "value": ""}""") shouldBe Right(Record("empty", ""))
      record(s"""{"name": "${"n" * 64}", "value": "${"é" * 512}"}""") shouldBe Right(Record("n" * 64, "é" * 512))
    }
    "refuse a missing or invalid name" in {
      for text <- Seq("""{"value": "x"}""", """{"name": 5, "value": "x"}""", """{"name": "a b", "value": "x"}""") do
        withClue(text)(record(text).isLeft shouldBe true)
      record(s"""{"name": "${"n" * 65}", "value": "x"}""").isLeft shouldBe true
    }
    "refuse a missing or non-string value, one over 1024 UTF-8 bytes, and U+0000" in {
      for text <- Seq("""{"name": "a"}""", """{"name": "a", "value": null}""", """{"name": "a", "value": ["x"]}""") do
        withClue(text)(record(text) shouldBe Left("body needs a \"value\" string"))
      record(s"""{"name": "a", "value": "${"é" * 512}x"}""") shouldBe Left("value longer than 1024 bytes")
      record("""{"name": "a", "value": "nul\u0000"}""") shouldBe Left("value contains U+0000")
    }
  }
