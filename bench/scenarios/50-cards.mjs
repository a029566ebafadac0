// Card authorisation simulations (bench/cards.mjs).
export { run } from '../cards.mjs';
