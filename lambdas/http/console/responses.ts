import type { RouteResponses } from '#catalog/types';
import { failure, file } from '../kit/responses';

/** The answers of the console's page and assets, for openapi.json. */
export const consoleResponses = {
  ConsolePage: { answers: { 200: file('The console page', ['text/html']) } },
  ConsoleScreens: {
    answers: {
      200: file('The page (a screen address), app.js or app.css', ['text/html', 'text/javascript', 'text/css']),
      404: failure('No console file or screen by that name', ['not_found']),
    },
  },
  ConsoleScreenItem: { answers: { 200: file('The page, opened on one record', ['text/html']), 404: failure('No console screen by that name', ['not_found']) } },
} satisfies Record<string, RouteResponses>;
