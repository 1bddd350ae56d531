// Progressive enhancement only: every page works without this file.
// - forms with data-confirm ask first;
// - relative time hints ("3 minutes ago") stay current while the page is open.
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

const UNITS = [
  [86400000, 'day'],
  [3600000, 'hour'],
  [60000, 'minute'],
  [1000, 'second'],
];
// The server puts its "now" (the scope's clock: the sandbox clock may run ahead) on the body.

function relative(at, now) {
  const diff = at - now;
  const size = Math.abs(diff);
  if (size < 5000) return 'just now';
  const [unit, name] = UNITS.find(([ms]) => size >= ms) ?? UNITS[3];
  const n = Math.floor(size / unit);
  const label = `${n} ${name}${n === 1 ? '' : 's'}`;
  return diff < 0 ? `${label} ago` : `in ${label}`;
}
const loadedAt = Date.now();
const serverNow = Number(document.body.dataset.now || loadedAt);
setInterval(() => {
  const now = serverNow + (Date.now() - loadedAt);
  for (const time of document.querySelectorAll('time[datetime]')) {
    const hint = time.nextElementSibling;
    if (hint?.classList.contains('rel')) hint.textContent = relative(Date.parse(time.dateTime), now);
  }
}, 15000);

// A pending quote's countdown ("4:05 left"), every second, on the same clock as the hints above.
function remaining(until, now) {
  const left = Math.floor((until - now) / 1000);
  if (left <= 0) return 'expired';
  const pad = (n) => String(n).padStart(2, '0');
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const minutes = h > 0 ? `${h}:${pad(m)}` : String(m);
  return `${minutes}:${pad(left % 60)} left`;
}
const countdowns = document.querySelectorAll('.countdown[data-until]');
if (countdowns.length > 0) {
  setInterval(() => {
    const now = serverNow + (Date.now() - loadedAt);
    for (const el of countdowns) el.textContent = remaining(Date.parse(el.dataset.until), now);
  }, 1000);
}
