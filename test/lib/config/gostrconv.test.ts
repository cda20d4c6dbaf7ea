import t from 'tap';
import { goAtoi, goIntValue, goQuote, goQuoteChar, parseGoBool, parseGoInt, parseGoIntValue, parseGoUint } from '../../../lib/config/gostrconv.js';
import { isQuantity, parseQuantity } from '../../../lib/config/quantity.js';

t.test('goQuote is strconv.Quote', async (t) => {
  const table: [string, string][] = [
    ['plain', '"plain"'], ['a"b\\c', '"a\\"b\\\\c"'], ['\n\t\r', '"\\n\\t\\r"'], ['\u0000', '"\\x00"'], ['\u007f', '"\\x7f"'],
    ['é', '"é"'], ['\u00a0', '"\\u00a0"'], ['😀', '"😀"'], ['\u200b', '"\\u200b"'], ['', '""'],
  ];
  for (const [s, want] of table) t.equal(goQuote(s), want, JSON.stringify(s));
  t.equal(goQuoteChar(0x27), `'\\''`);
  t.equal(goQuoteChar(0x22), `'"'`);
  t.equal(goQuoteChar(0x0a), `'\\n'`);
});

t.test('ParseInt / ParseUint / Atoi / ParseBool', async (t) => {
  const ints: [string, number, number, bigint | string][] = [
    ['0x1f', 0, 32, 31n], ['0o17', 0, 32, 15n], ['017', 0, 32, 15n], ['0b11', 0, 32, 3n], ['1_000', 0, 32, 1000n], ['-2147483648', 0, 32, -2147483648n],
    ['2147483648', 0, 32, 'strconv.ParseInt: parsing "2147483648": value out of range'], ['1__0', 0, 32, 'strconv.ParseInt: parsing "1__0": invalid syntax'],
    ['08', 0, 32, 'strconv.ParseInt: parsing "08": invalid syntax'], ['1_000', 10, 32, 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['', 10, 64, 'strconv.ParseInt: parsing "": invalid syntax'], ['+5', 10, 64, 5n],
  ];
  for (const [s, base, bits, want] of ints) {
    if (typeof want === 'bigint') t.equal(parseGoInt(s, base, bits), want, s);
    else t.throws(() => parseGoInt(s, base, bits), { message: want }, s);
  }
  t.equal(parseGoUint('4294967295', 10, 32), 4294967295n);
  t.throws(() => parseGoUint('-1', 10, 32), { message: 'strconv.ParseUint: parsing "-1": invalid syntax' });
  t.equal(goAtoi('42'), 42);
  t.throws(() => goAtoi('4x'), { message: 'strconv.Atoi: parsing "4x": invalid syntax' });
  t.equal(parseGoBool('T'), true);
  t.throws(() => parseGoBool('yes'), { message: 'strconv.ParseBool: parsing "yes": invalid syntax' });
});

t.test('parseGoIntValue is goIntValue(parseGoInt(s, 10, bits)), value and error', async (t) => {
  const outcome = (f: () => unknown) => {
    try {
      const v = f();
      return { v: typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const cases = ['0', '-0', '+0', '007', '-007', '+5', '-1', '1', '2147483647', '2147483648', '-2147483648', '-2147483649', '999999999999999', '-999999999999999',
    '9999999999999999', '9007199254740991', '9007199254740993', '-9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
    '1_000', '0x10', '', '+', '-', '1.5', '1e3', ' 1', '1 ', '٣', '+-1', '00000000000000001'];
  for (let i = 0; i < 300; i++) cases.push(String(Math.floor((Math.random() - 0.5) * 2 ** (1 + (i % 62)))));
  for (const s of cases) {
    for (const bits of [32, 64]) t.same(outcome(() => parseGoIntValue(s, bits)), outcome(() => goIntValue(parseGoInt(s, 10, bits))), `${JSON.stringify(s)} ${bits}`);
  }
});

t.test('quantities', async (t) => {
  const table: [string, boolean, boolean][] = [
    ['0', true, true], ['0Gi', true, true], ['0.0', true, true], ['1Gi', true, false], ['100Mi', true, false], ['1.5', true, false],
    ['1e3', true, false], ['5m', true, false], ['-1', true, false], ['+2Ki', true, false], ['', false, false], ['1Qi', false, false],
    ['1mm', false, false], ['abc', false, false], ['1 Gi', false, false],
  ];
  for (const [s, ok, zero] of table) {
    t.equal(isQuantity(s), ok, s);
    if (ok) t.equal(parseQuantity(s).zero, zero, `${s} zero`);
  }
});

t.test('goIntValue: a number while exact, else the bigint', async (t) => {
  t.equal(goIntValue(0n), 0);
  t.equal(goIntValue(9007199254740991n), 9007199254740991);
  t.equal(goIntValue(-9007199254740991n), -9007199254740991);
  t.equal(goIntValue(9007199254740992n), 9007199254740992n);
  t.equal(goIntValue(-9223372036854775808n), -9223372036854775808n);
  t.equal(goIntValue(parseGoInt('9223372036854775807', 10, 64)), 9223372036854775807n);
});
