/**
 * What the scripted demo team knows: arithmetic on two numbers and a handful of facts. Each persona has
 * its own words for the same question, so answers stay told apart by their text: Ada is brief and
 * right, Grace is thorough and revises once, Linus answers at once and is often wrong (the team's votes
 * are what catch him — and what `massgen eval`'s single-agent baselines show).
 */

/** The scripted agents, named by their `model:` (`scripted-ada`, …). */
export const DEMO_PERSONAS = ['ada', 'grace', 'linus'] as const;
export type DemoPersona = (typeof DEMO_PERSONAS)[number];

/** One question's answers: each persona's first, and Grace's revision. */
export interface DemoAnswers {
  ada: string;
  linus: string;
  grace: string;
  graceRevised: string;
}

interface Fact {
  about: RegExp;
  answers: DemoAnswers;
}

const FACTS: readonly Fact[] = [
  {
    about: /\bboil/i,
    answers: {
      ada: 'Water boils at 100 °C at sea level (1 atm).',
      linus: 'Roughly 100 degrees.',
      grace: 'At standard atmospheric pressure (1 atm, sea level) water boils at 100 °C (212 °F).',
      graceRevised:
        'At standard atmospheric pressure (1 atm, sea level) water boils at 100 °C (212 °F); the boiling point drops at altitude, about 1 °C per 300 m.',
    },
  },
  {
    about: /capital of australia/i,
    answers: {
      ada: 'Canberra.',
      linus: 'Sydney.',
      grace: 'The capital of Australia is Canberra, not Sydney.',
      graceRevised:
        'The capital of Australia is Canberra, not Sydney: it was built as a compromise between Sydney and Melbourne, and Parliament has sat there since 1927.',
    },
  },
  {
    about: /capital of canada/i,
    answers: {
      ada: 'Ottawa.',
      linus: 'Toronto.',
      grace: 'The capital of Canada is Ottawa, not Toronto.',
      graceRevised:
        'The capital of Canada is Ottawa, not Toronto (the largest city): Queen Victoria chose it in 1857.',
    },
  },
  {
    about: /largest planet/i,
    answers: {
      ada: 'Jupiter.',
      linus: 'Saturn.',
      grace: 'Jupiter is the largest planet in the solar system.',
      graceRevised:
        'Jupiter is the largest planet in the solar system: more than twice as massive as all the other planets together.',
    },
  },
  {
    about: /hamlet/i,
    answers: {
      ada: 'William Shakespeare.',
      linus: 'Christopher Marlowe.',
      grace: 'Hamlet was written by William Shakespeare.',
      graceRevised: 'Hamlet was written by William Shakespeare, around 1600.',
    },
  },
  {
    about: /(tallest|highest) mountain/i,
    answers: {
      ada: 'Mount Everest.',
      linus: 'K2.',
      grace: 'Mount Everest is the tallest mountain on Earth, at 8,849 m above sea level.',
      graceRevised:
        'Mount Everest is the tallest mountain on Earth, at 8,849 m above sea level; K2 is second, at 8,611 m.',
    },
  },
  {
    about: /largest ocean/i,
    answers: {
      ada: 'The Pacific Ocean.',
      linus: 'The Atlantic.',
      grace: 'The Pacific is the largest ocean.',
      graceRevised: 'The Pacific is the largest ocean: it covers about a third of the Earth’s surface.',
    },
  },
  {
    about: /speed of light/i,
    answers: {
      ada: 'About 299,792 km/s.',
      linus: 'About 300,000 km/h.',
      grace: 'The speed of light in a vacuum is 299,792,458 m/s.',
      graceRevised: 'The speed of light in a vacuum is 299,792,458 m/s: about 299,792 km per second.',
    },
  },
];

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const OPERATORS: readonly { words: RegExp; sign: string; apply: (a: number, b: number) => number }[] = [
  { words: /^(\+|plus|added to)$/i, sign: '+', apply: (a, b) => a + b },
  { words: /^(-|−|minus)$/i, sign: '−', apply: (a, b) => a - b },
  { words: /^(\*|x|×|times|multiplied by)$/i, sign: '×', apply: (a, b) => a * b },
  { words: /^(\/|÷|divided by|over)$/i, sign: '÷', apply: (a, b) => a / b },
];
const SUM = new RegExp(
  String.raw`(${NUMBER})\s*(\+|plus|added to|-|−|minus|\*|×|x|times|multiplied by|\/|÷|divided by|over)\s*(${NUMBER})`,
  'i',
);

/** A number as people write it: no float noise (`0.1 + 0.2` is 0.3), no trailing zeros. */
const show = (n: number): string => String(Number(n.toPrecision(12)));

/** The inverse operation that checks `a op b = r`. */
function check(sign: string, a: number, b: number, r: number): string {
  if (sign === '+') return `${show(r)} − ${show(b)} = ${show(a)}`;
  if (sign === '−') return `${show(r)} + ${show(b)} = ${show(a)}`;
  if (sign === '×') return b === 0 ? `anything × 0 = 0` : `${show(r)} ÷ ${show(b)} = ${show(a)}`;
  return `${show(r)} × ${show(b)} = ${show(a)}`;
}

function arithmetic(question: string): DemoAnswers | null {
  const match = SUM.exec(question);
  if (!match) return null;
  const a = Number(match[1]);
  const b = Number(match[3]);
  const operator = OPERATORS.find((op) => op.words.test((match[2] ?? '').trim()));
  if (!operator) return null;
  const sum = `${show(a)} ${operator.sign} ${show(b)}`;
  if (operator.sign === '÷' && b === 0)
    return {
      ada: `${sum} is undefined: there is no number to divide by zero.`,
      linus: 'Infinity.',
      grace: `${sum} has no answer: division by zero is undefined.`,
      graceRevised: `${sum} has no answer: division by zero is undefined (no number times 0 gives ${show(a)}).`,
    };
  const r = operator.apply(a, b);
  return {
    ada: `${sum} = ${show(r)}.`,
    // The hasty one slips by one: the mistake a team's votes are there to catch.
    linus: `Quick one: ${show(r - 1)}.`,
    grace: `The answer is ${show(r)}: ${sum} = ${show(r)}.`,
    graceRevised: `The answer is ${show(r)}: ${sum} = ${show(r)}. Check: ${check(operator.sign, a, b, r)}.`,
  };
}

const UNKNOWN: DemoAnswers = {
  ada: 'I am a scripted demo agent: I can do arithmetic ("What is 6 times 7?") and a few facts, nothing else.',
  linus: 'No idea — I only follow a script.',
  grace:
    'This scripted demo team answers arithmetic on two numbers and a few facts (capitals of Australia and Canada, the largest planet and ocean, the tallest mountain, who wrote Hamlet, the speed of light, when water boils).',
  graceRevised:
    'This scripted demo team answers arithmetic on two numbers ("What is 6 times 7?") and a few facts (capitals of Australia and Canada, the largest planet and ocean, the tallest mountain, who wrote Hamlet, the speed of light, when water boils). Configure real models (massgen --setup) to ask anything else.',
};

/** Every persona's answers to `question`: arithmetic first, then the facts, else a polite refusal. */
export function demoAnswers(question: string): DemoAnswers {
  return arithmetic(question) ?? FACTS.find((fact) => fact.about.test(question))?.answers ?? UNKNOWN;
}

/** What `persona` submits as its first answer, and as its revision (Grace only). */
export function answersOf(persona: DemoPersona, answers: DemoAnswers): readonly string[] {
  return persona === 'grace' ? [answers.grace, answers.graceRevised] : [answers[persona]];
}
