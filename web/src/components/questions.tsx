import { useState } from 'react';
import { api } from '../api.js';
import type { OpenQuestion } from '../run-view.js';

/**
 * The agents' questions to you (`ask_others` with `coordination.broadcast: human`): each with a box
 * for the answer. The agent waits until you answer or its `broadcast_timeout` passes.
 */
export function Questions({ runId, questions }: { runId: string; questions: OpenQuestion[] }) {
  return (
    <section aria-label="Questions for you" className="questions">
      {questions.map((q) => (
        <QuestionForm key={q.questionId} runId={runId} question={q} />
      ))}
    </section>
  );
}

function QuestionForm({ runId, question }: { runId: string; question: OpenQuestion }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const id = `answer-${question.questionId}`;
  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await api.answerQuestion(runId, question.questionId, text.trim());
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={send} className="panel">
      <label htmlFor={id}>
        {question.agentId} asks: {question.question}
      </label>
      <textarea id={id} rows={2} maxLength={4000} value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit" disabled={busy || text.trim() === ''}>
        Answer {question.agentId}
      </button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}
