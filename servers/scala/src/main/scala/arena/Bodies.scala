package arena

import org.apache.pekko.http.scaladsl.unmarshalling.{FromEntityUnmarshaller, Unmarshaller}
import org.apache.pekko.util.ByteString
import spray.json.{JsObject, JsString, JsonParser, JsonParserSettings, ParserInput}

import java.nio.charset.{CharacterCodingException, StandardCharsets}
import scala.util.control.NonFatal

/** A /user/set body: the bytes as received, checked to be one UTF-8 JSON object. */
final case class UserJson(bytes: ByteString)

/** The password of a /password/set or /password/verify body. */
final case class Password(value: String)

/** Request bodies. The unmarshallers fail with IllegalArgumentException, which Pekko's `entity` directive turns into a
  * 400 with the message; a body over the size limit fails while it is read, and Routes answers 413.
  */
object Bodies:
  /** The contract's usernames and record names, matched after percent-decoding. */
  val Name = "[A-Za-z0-9_.-]{1,64}".r

  /** bcrypt's limit, in UTF-8 bytes. */
  val MaxPasswordBytes = 72

  /** A record's value, in UTF-8 bytes. */
  val MaxValueBytes = 1024

  // spray-json refuses numbers over 100 characters by default; any number that fits in a body is valid JSON.
  private val parserSettings = JsonParserSettings.default.withMaxNumberCharacters(Int.MaxValue)

  def parseObject(bytes: ByteString): Either[String, JsObject] =
    // JSON text is UTF-8; a lenient decoder would silently replace bad bytes, and so change a password.
    val text =
      try Right(StandardCharsets.UTF_8.newDecoder().decode(bytes.asByteBuffer).toString)
      catch case _: CharacterCodingException => Left("body is not UTF-8")
    text.flatMap { text =>
      try
        JsonParser(ParserInput(text), parserSettings) match
          case obj: JsObject => Right(obj)
          case _             => Left("body is not a JSON object")
      catch case NonFatal(_) => Left("body is not valid JSON")
    }

  def password(body: JsObject): Either[String, Password] =
    body.fields.get("password") match
      case Some(JsString(value)) if value.getBytes(StandardCharsets.UTF_8).length <= MaxPasswordBytes =>
        Right(Password(value))
      case Some(JsString(_)) => Left(s"password longer than $MaxPasswordBytes bytes")
      case _                 => Left("body needs a \"password\" string")

  /** `name` and `value` of a /record body; other fields are ignored. */
  def record(body: JsObject): Either[String, Record] =
    for
      name <- body.fields
        .get("name")
        .collect { case JsString(name) if Name.matches(name) => name }
        .toRight("body needs a \"name\" matching [A-Za-z0-9_.-]{1,64}")
      value <- body.fields
        .get("value")
        .collect { case JsString(value) => value }
        .toRight("body needs a \"value\" string")
      _ <- Either.cond(
        value.getBytes(StandardCharsets.UTF_8).length <= MaxValueBytes,
        (),
        s"value longer than $MaxValueBytes bytes"
      )
      // PostgreSQL's text cannot hold U+0000: refused here rather than failed by the database.
      _ <- Either.cond(!value.contains('\u0000'), (), "value contains U+0000")
    yield Record(name, value)

  given FromEntityUnmarshaller[UserJson] = checked(bytes => parseObject(bytes).map(_ => UserJson(bytes)))

  given FromEntityUnmarshaller[Password] = checked(bytes => parseObject(bytes).flatMap(password))

  given FromEntityUnmarshaller[Record] = checked(bytes => parseObject(bytes).flatMap(record))

  private def checked[T](check: ByteString => Either[String, T]): FromEntityUnmarshaller[T] =
    Unmarshaller.byteStringUnmarshaller.map(bytes =>
      check(bytes).fold(e => throw IllegalArgumentException(e), identity)
    )
