/**
 * Chat as a stadium writes it, for bench:wire: users with varied names, handles and URLs, and
 * messages of random words, so that what the bench compresses is as varied as real chat (a
 * repeated sentence and numbered users would flatter every compressor). Seeded: every run the same.
 */
let seed = 0x5eed;
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
}
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const hex = (length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

const FIRST = ['Jordan', 'Sam', 'Alex', 'Maria', 'Kofi', 'Aiko', 'Liam', 'Sofia', 'Mateo', 'Chloé', 'Yusuf', 'Priya', 'Noah', 'Elena', 'Tomás', 'Ines', 'Oluwaseun', 'Hannah', 'Wei', 'Fatima'];
const LAST = ['Smith', 'García', 'Okafor', 'Tanaka', 'Müller', 'Rossi', 'Nowak', 'Silva', 'Haddad', 'Kowalski', 'Dubois', 'Andersen', 'Mensah', 'Ivanova', 'Byrne', 'Costa'];
const WORDS = (
  'what a goal strike keeper save ref offside penalty corner header volley cross pass through ball midfield defence attack ' +
  'brilliant awful unbelievable class finish miss chance post bar crowd noise chant come on lads let us go again second half ' +
  'first half injury time sub bench manager tactics pressing counter wing back striker captain yellow card red card var check ' +
  'that was never a foul dive honestly the best we have played all season proper football from them tonight nervous now'
).split(' ');

const handlesTaken = new Set<string>();

export function person(): { userid: string; handle: string; displayname: string; pictureurl: string; profileurl: string } {
  const first = pick(FIRST);
  const last = pick(LAST);
  const plain = (name: string) =>
    name
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '');
  let handle = `${plain(first)}_${plain(last).slice(0, 1)}${hex(3)}`;
  while (handlesTaken.has(handle)) handle += hex(1);
  handlesTaken.add(handle);
  const userid = `u${hex(8)}`;
  return { userid, handle, displayname: `${first} ${last}`, pictureurl: `https://cdn.example.com/avatars/${hex(16)}.jpg`, profileurl: `https://example.com/@${handle}` };
}

/** Random words up to `length` characters, sometimes shouted. */
export function message(length: number): string {
  let text = '';
  while (text.length < length) text += `${text === '' ? '' : ' '}${pick(WORDS)}`;
  text = text.slice(0, length).trimEnd();
  return random() < 0.2 ? `${text.toUpperCase()}!!` : text;
}
