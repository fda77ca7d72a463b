// Sounds made here with WebAudio (no file is fetched), played only when the setting is on
// (settings.js): a short snap for a card played, two rising notes for a trick won.
import { soundOn } from "./settings.js";

let context = null;
// How many of each this page has played (the table shows it as data-sounds: a test has
// nothing to hear).
export const played = { card: 0, trick: 0 };

function audio() {
  if (!soundOn()) return null;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

// A card put down: a burst of noise, band-passed, falling off in 80 ms.
export function cardSound() {
  const ctx = audio();
  if (!ctx) return;
  const length = Math.floor(ctx.sampleRate * 0.08);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  const gain = ctx.createGain();
  gain.gain.value = 0.5;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start();
  played.card += 1;
}

// A trick won: two short notes, a fifth apart.
export function trickSound() {
  const ctx = audio();
  if (!ctx) return;
  [523.25, 783.99].forEach((frequency, i) => {
    const start = ctx.currentTime + i * 0.11;
    const osc = ctx.createOscillator();
    osc.type = "triangle";
    osc.frequency.value = frequency;
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.25, start + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.22);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start);
    osc.stop(start + 0.25);
  });
  played.trick += 1;
}

